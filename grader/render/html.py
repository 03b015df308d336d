"""The HTML report of one graded submission: a pure function of its result JSON.

One self-contained page (inline CSS and SVG, no script, a Content-Security-Policy that forbids
every external load): the score, a verdict per test and device, each distinct failure with its
diagnosis and the line of the learner's file it happened on (in a notebook: the cell and its
line), their output, the loss curves of training exercises, the hints and the environment.

:func:`render_inline` is the same result in a compact fragment for a notebook's output area
(the ``%%grade`` magic): no page around it, its style scoped to itself, still no script and
nothing loaded from anywhere.
"""

from __future__ import annotations

import re
from typing import Any

from grader.render.charts import loss_chart
from grader.render.templates import render
from grader.results import (
    Result,
    Status,
    devices_of,
    failure_groups,
    group_devices,
    group_names,
)
from grader.sections import describe
from grader.text import as_a_terminal_shows, source_lines


def render_result(result: Result, *, advisory: bool = False, hints_shown: int = 0) -> str:
    """The HTML report of one graded submission. ``hints_shown``: how many hints the learner
    has already asked for (``grade hint``); those are shown, the next one is folded, and the
    rest stay for ``grade hint`` to give one at a time."""
    view = result_view(result)
    view["advisory"] = advisory
    shown = max(0, min(hints_shown, len(result.hints)))
    view["hints_revealed"] = list(result.hints[:shown])
    view["hint_next"] = result.hints[shown] if shown < len(result.hints) else ""
    view["hints_left"] = max(0, len(result.hints) - shown - 1)
    view["short_id"] = (
        result.exercise_id.removeprefix("exercise-").lstrip("0") or result.exercise_id
    )
    return render("result.html.j2", view, result.lang)


def render_inline(result: Result, *, report_path: str | None = None, practice: bool = False) -> str:
    """The result as an HTML fragment for a notebook cell's output (``%%grade``): the score,
    the verdicts, each failure with its diagnosis and fix, the loss curves. ``report_path``:
    where the full report was written, named at the bottom; ``practice``: graded in the
    learner's own workspace."""
    view = result_view(result)
    view["report_path"] = report_path or ""
    view["practice"] = practice
    view["short_id"] = (
        result.exercise_id.removeprefix("exercise-").lstrip("0") or result.exercise_id
    )
    return render("inline.html.j2", view, result.lang)


def render_result_data(data: dict[str, Any], *, advisory: bool = False) -> str:
    """The same, straight from result JSON (a dict), e.g. one read back from disk."""
    return render_result(Result.from_dict(data), advisory=advisory)


def result_view(result: Result) -> dict[str, Any]:
    """Plain values for the result template."""
    devices = devices_of(result.tests)
    failures = _failures(result)
    anchor_of = {key: f["anchor"] for f in failures for key in f["tests"]}
    rows = []
    for name in dict.fromkeys(t.name for t in result.tests):
        tests = [t for t in result.tests if t.name == name]
        cells: list[dict[str, Any] | None] = []
        if all(t.device is None for t in tests):
            test = tests[0]
            cells.append(
                {
                    "span": max(1, len(devices)),
                    "status": test.status.value,
                    "word": test.verdict_word,
                    "label": "any",
                    "anchor": anchor_of.get((name, None)),
                    "title": test.message if test.status is Status.SKIPPED else "",
                }
            )
        else:
            for device in devices:
                on_device = next((t for t in tests if t.device == device), None)
                cells.append(
                    None
                    if on_device is None
                    else {
                        "span": 1,
                        "status": on_device.status.value,
                        "word": on_device.verdict_word,
                        "label": device,
                        "anchor": anchor_of.get((name, device)),
                        "title": on_device.message if on_device.status is Status.SKIPPED else "",
                    }
                )
        rows.append(
            {
                "name": name,
                "description": tests[0].description,
                "cells": cells,
                "points": f"{sum(t.points for t in tests if t.status is not Status.SKIPPED):g}/"
                f"{sum(t.max_points for t in tests if t.status is not Status.SKIPPED):g}",
            }
        )
    marked: dict[int, list[str]] = {}
    for failure in failures:
        if failure["line"]:
            marked.setdefault(failure["line"], []).append(failure["anchor"])
    code = [
        {"number": i, "text": text, "anchors": marked.get(i, []), **_cell_of(result, i, text)}
        for i, text in enumerate(source_lines(result.source), start=1)
    ]
    curves = []
    seen_curves = set()
    for test in result.tests:
        curve = test.data.get("loss_curve") if isinstance(test.data, dict) else None
        chart = loss_chart(curve) if isinstance(curve, dict) else None
        if chart is not None and test.name not in seen_curves:
            seen_curves.add(test.name)
            chart.update(name=test.name, device=test.device or "", description=test.description)
            curves.append(chart)
    env = result.environment
    return {
        "exercise_id": result.exercise_id,
        "title": result.exercise_title,
        "status": result.status.value,
        "score": f"{result.score:g}",
        "max_score": f"{result.max_score:g}",
        "percent": round(result.percent),
        "submission": result.submission,
        "notes": list(result.notes),
        "review": [{"line": n.line, "message": n.message, "kind": n.kind} for n in result.review],
        "review_unread": result.review_unread,
        "devices": devices,
        "rows": rows,
        "failures": failures,
        "code": code,
        "notebook": result.cells is not None,
        "curves": curves,
        "hints": list(result.hints),
        "all_passed": result.status is Status.PASSED,
        "environment": {
            "python": env.python,
            "torch": env.torch,
            "platform": env.platform,
            "cuda": ", ".join(env.cuda_devices),
            "isolation": env.isolation,
            "seed": result.seed,
            "grader": result.grader_version,
            "duration": f"{result.duration_s:.2f} s",
            "devices": ", ".join(result.devices),
        },
    }


def _failures(result: Result) -> list[dict[str, Any]]:
    """One entry per distinct failure (the same message on several devices is shown once).
    A diagnosis is explained once, at the first failure it explains; a later failure with the
    same diagnosis names it and links there (``diagnosis_seen``), so a %%grade cell whose
    tests share one mistake does not repeat the same box once per test."""
    failures = []
    first_anchor: dict[str, str] = {}
    for index, tests in enumerate(failure_groups(result.tests), start=1):
        first = tests[0]
        frame = first.frames[-1] if first.frames else None
        anchor = f"failure-{index}"
        diagnosis = None
        seen = None
        if first.diagnosis is not None:
            d = first.diagnosis
            if d.id in first_anchor:
                seen = {"id": d.id, "title": d.title, "anchor": first_anchor[d.id]}
            else:
                first_anchor[d.id] = anchor
                diagnosis = {
                    "id": d.id,
                    "title": d.title,
                    "explanation": d.explanation,
                    "fix": d.fix,
                    "teaches": citations(d.teaches, result.lang),
                }
        failures.append(
            {
                "anchor": anchor,
                "name": group_names(tests),
                "description": first.description if len({t.name for t in tests}) == 1 else "",
                "status": first.status.value,
                "word": first.verdict_word,
                "devices": group_devices(tests),
                "tests": [(t.name, t.device) for t in tests],
                "message": first.message,
                "diagnosis": diagnosis,
                "diagnosis_seen": seen,
                "line": frame.line if frame else None,
                **_where(result, frame.line if frame else None),
                "function": frame.function if frame else "",
                "code": frame.code if frame else "",
                "output": as_a_terminal_shows(first.output),
                "output_truncated": first.output_truncated,
                "points": f"{sum(t.max_points for t in tests):g}",
            }
        )
    return failures


def citations(teaches: str, lang: str) -> list[dict[str, str]]:
    """The tutorial sections a diagnosis cites, as a student can look them up: the tutorial's
    title, the section's number and its heading (titles from grader.sections), e.g.
    “PyTorch study notes: all about tensors”, section 2.2: Generated tensors: ...; a reference
    the catalog does not know keeps the words its author wrote."""
    shown = []
    for s in describe(teaches, lang):
        number = s.ref.split("§", 1)[-1]
        if s.known and s.tutorial:
            text = (
                f"《{s.tutorial}》第 {number} 节：{s.title}"
                if lang == "zh"
                else f"“{s.tutorial}”, section {number}: {s.title}"
            )
        else:
            text = s.ref
        shown.append({"ref": s.ref, "title": s.title, "text": text})
    return shown


_CELL_MARKER = re.compile(r"^# %% cell (\d+)$")  # what grader.notebooks puts before each cell


def _where(result: Result, line: int | None) -> dict[str, Any]:
    """A failure's line as the learner finds it in a notebook: the cell and its line."""
    where = result.where(line) if line else None
    if where is None:
        return {"cell": None, "cell_line": None, "count": None}
    cell, cell_line, count = where
    return {"cell": cell, "cell_line": cell_line, "count": count}


def _cell_of(result: Result, line: int, text: str) -> dict[str, Any]:
    """For a notebook's code view: the line's number in its cell, or the cell it starts."""
    if result.cells is None:
        return {}
    where = result.where(line)
    marker = _CELL_MARKER.match(text) if where is None else None
    return {
        "cell_line": where[1] if where else None,
        "cell_head": int(marker.group(1)) if marker else None,
    }
