"""Gradescope's results.json format, as its autograder specification documents it
(https://gradescope-autograders.readthedocs.io/en/latest/specs/, "Output format", "Controlling
Test Case Visibility", "Test case status", "Output String Formatting"), as a checker that
lists every way a results.json departs from it. Written from the documentation, not from the
grader's own writer, so that a writer bug cannot hide in the check.

The specification's rules:

- top level: ``score`` (a number; required unless every test has one), ``execution_time``
  (seconds, a number), ``output`` (text), ``output_format``, ``test_output_format``,
  ``test_name_format``, ``visibility``, ``stdout_visibility``, ``extra_data`` (an object),
  ``tests`` (a list; required without a top-level score), ``leaderboard`` (a list of
  ``{name, value, order?}``);
- a test: ``score``, ``max_score`` (numbers), ``status`` (``passed`` or ``failed``), ``name``,
  ``name_format``, ``number`` (text), ``output``, ``output_format``, ``tags`` (a list of
  text), ``visibility``, ``extra_data``;
- visibilities: ``hidden``, ``after_due_date``, ``after_published``, ``visible``;
- formats: ``text``, ``html``, ``simple_format``, ``md``, ``ansi``.
"""

from __future__ import annotations

from typing import Any

VISIBILITIES = ("hidden", "after_due_date", "after_published", "visible")
FORMATS = ("text", "html", "simple_format", "md", "ansi")
_NUMBER = (int, float)
TOP = {
    "score": _NUMBER,
    "execution_time": _NUMBER,
    "output": str,
    "output_format": str,
    "test_output_format": str,
    "test_name_format": str,
    "visibility": str,
    "stdout_visibility": str,
    "extra_data": dict,
    "tests": list,
    "leaderboard": list,
}
TEST = {
    "score": _NUMBER,
    "max_score": _NUMBER,
    "status": str,
    "name": str,
    "name_format": str,
    "number": str,
    "output": str,
    "output_format": str,
    "tags": list,
    "visibility": str,
    "extra_data": dict,
}


def _typed(where: str, data: dict, fields: dict[str, Any]) -> list[str]:
    found = []
    for key, value in data.items():
        if key not in fields:
            found.append(f"{where}: unknown key {key!r}")
        elif isinstance(value, bool) or not isinstance(value, fields[key]):
            found.append(f"{where}.{key}: {type(value).__name__} where the spec has another type")
    for key in ("visibility", "stdout_visibility"):
        if isinstance(data.get(key), str) and data[key] not in VISIBILITIES:
            found.append(f"{where}.{key}: {data[key]!r} is not a visibility")
    for key in ("output_format", "test_output_format", "test_name_format", "name_format"):
        if isinstance(data.get(key), str) and data[key] not in FORMATS:
            found.append(f"{where}.{key}: {data[key]!r} is not an output format")
    return found


def problems(data: Any) -> list[str]:
    """Every way ``data`` (a parsed results.json) departs from the specification."""
    if not isinstance(data, dict):
        return ["results.json is not an object"]
    found = _typed("results", data, TOP)
    tests = data.get("tests") if isinstance(data.get("tests"), list) else []
    if "score" not in data:
        if "tests" not in data:
            found.append("results: neither a score nor tests")
        elif not all(isinstance(t, dict) and "score" in t for t in tests):
            found.append("results: no top-level score, and a test without one")
    if isinstance(data.get("score"), _NUMBER) and data["score"] < 0:
        found.append("results.score: negative")
    for index, test in enumerate(tests):
        where = f"results.tests[{index}]"
        if not isinstance(test, dict):
            found.append(f"{where}: not an object")
            continue
        found += _typed(where, test, TEST)
        if isinstance(test.get("status"), str) and test["status"] not in ("passed", "failed"):
            found.append(f"{where}.status: {test['status']!r} is not passed or failed")
        if isinstance(test.get("tags"), list) and not all(isinstance(t, str) for t in test["tags"]):
            found.append(f"{where}.tags: not a list of text")
    for index, entry in enumerate(data.get("leaderboard") or []):
        where = f"results.leaderboard[{index}]"
        if not isinstance(entry, dict) or set(entry) - {"name", "value", "order"}:
            found.append(f"{where}: not {{name, value, order}}")
        elif entry.get("order", "desc") not in ("asc", "desc"):
            found.append(f"{where}.order: not asc or desc")
    return found
