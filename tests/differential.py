"""Correct code behaves in the grader exactly as under plain ``python``, debug prints and all.

Every reference solution and alternative gets debug code a learner might leave in: a tensor
printed at import (``print``, ``repr``, an f-string), a warning, and a print of the arguments
(tensors, models) at the top of every function. Graded as a class, each must still score full
marks, with its own output and nothing else (no traceback, no grader path, no sandbox path).
Used by tests/test_differential.py (this checkout, both tiers) and tests/test_wheel.py (the
grader installed into a virtualenv under /tmp).
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from tests.conftest import ROOT

MARK = "debug-print"
# what must never show in a learner's output when their own code is correct
FOREIGN = (
    "Traceback",
    "Error",
    "site-packages",
    "/tmp/work",
    "grader-child-",
    "grader/",
    "child.py",
    "Unexpected error",
)

PRELUDE = f"""\
import torch as _debug_torch
import warnings as _debug_warnings

print("{MARK} at import", _debug_torch.arange(3.0))
print("{MARK} repr", repr(_debug_torch.ones(2, 2, dtype=_debug_torch.float64)))
print(f"{MARK} f-string {{_debug_torch.zeros(2)}} and {{_debug_torch.tensor([1, 2])!r}}")
_debug_warnings.warn("{MARK} warning")
"""


def with_prints(source: str) -> str:
    """``source`` with the debug code added (its own code unchanged)."""
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            call = ast.parse(f'print(f"{MARK} {node.name}(...) got {{list(locals().values())!r}}")')
            at = 1 if ast.get_docstring(node) is not None else 0
            node.body.insert(at, call.body[0])
    body = ast.unparse(tree)
    # `from __future__` imports must stay first
    lines = body.splitlines()
    future = [line for line in lines if line.startswith("from __future__")]
    rest = [line for line in lines if not line.startswith("from __future__")]
    return "\n".join([*future, PRELUDE, *rest]) + "\n"


def correct_solutions() -> list[tuple[str, str, Path]]:
    """(student name, exercise id, file) of every reference and alternative."""
    found = []
    for folder in sorted((ROOT / "exercises").glob("exercise-*")):
        exercise = folder.name
        found.append(
            (f"{exercise}-reference", exercise, ROOT / "solutions" / exercise / f"{exercise}.py")
        )
        for alt in sorted((folder / "alternatives").glob("*.py")):
            found.append((f"{exercise}-{alt.stem}", exercise, alt))
    return found


def make_class(root: Path, solutions: list[tuple[str, str, Path]] | None = None) -> dict[str, str]:
    """A class folder with one student per correct solution (``solutions``, default: every
    one); student -> exercise."""
    students = {}
    for student, exercise, path in correct_solutions() if solutions is None else solutions:
        folder = root / student
        folder.mkdir(parents=True)
        (folder / f"{exercise}.py").write_text(with_prints(path.read_text(encoding="utf-8")))
        students[student] = exercise
    return students


def check_class(out: Path, students: dict[str, str]) -> None:
    """Every student at full marks, with their own output only."""
    problems = []
    printed = 0
    for student, exercise in students.items():
        data = json.loads((out / "students" / student / f"{exercise}.json").read_text())
        if data["status"] != "passed" or data["score"] != data["max_score"]:
            lost = [
                f"{t['name']}[{t['device']}]: {t['message'][:300]}"
                for t in data["tests"]
                if t["status"] not in ("passed", "skipped")
            ]
            problems.append(f"{student}: {data['score']}/{data['max_score']} {lost}")
        output = "".join(t["output"] for t in data["tests"])
        printed += MARK in output
        foreign = [marker for marker in FOREIGN if marker in output]
        if foreign:
            problems.append(f"{student}: output shows {foreign}:\n{output[:1500]}")
        if f"{student}/{exercise}.py" not in output:  # the warning names the file as handed in
            problems.append(f"{student}: the warning does not name {student}/{exercise}.py")
    assert printed == len(students), "some output was not captured"
    assert not problems, "\n".join(problems)
