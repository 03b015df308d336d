"""The class report of a batch (``DIR/index.html``): the gradebook as a table, the score
distribution, pass rates per exercise and per test, and the most frequent misconceptions."""

from __future__ import annotations

from typing import Any

from grader.render.charts import histogram
from grader.render.templates import render


def _number(value: float) -> str:
    text = f"{round(value, 2):.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def render_class(
    rows: list[Any],
    assignment: Any,
    maxima: dict[str, float],
    titles: dict[str, str],
    stats: dict[str, Any],
    stray: list[str],
    lang: str,
    *,
    incomplete: str = "",
) -> str:
    """``rows`` are ``grader.lms.grades.GradeRow``; ``assignment`` the batch's assignment."""
    students = []
    for row in rows:
        cells = []
        for score in row.scores:
            graded = score.graded
            cells.append(
                {
                    "status": score.status,
                    "score": _number(score.score) if graded else "",
                    "report": f"students/{row.student.key}/{score.exercise}.html" if graded else "",
                }
            )
        final = row.final_percent
        students.append(
            {
                "id": row.student.key,
                "name": row.student.name if row.student.name != row.student.key else "",
                "cells": cells,
                "percent": "" if final is None else _number(final),
                "late": row.days_late,
                "late_percent": _number(row.late_percent),
                "problems": list(row.problems),
                "review": bool(row.review),
            }
        )
    percents = stats["percents"]
    weights = assignment.weights
    view = {
        "title": assignment.title or assignment.name,
        "students": students,
        "columns": [
            {
                "id": e,
                "title": titles.get(e, ""),
                "max": _number(maxima[e]),
                "weight": _number(weights[e]),
            }
            for e in assignment.ids
        ],
        "exercises": [
            dict(e, mean=f"{e['mean']:.1f}", max=_number(e["max"])) for e in stats["exercises"]
        ],
        "count": stats["students"],
        "mean": round(sum(percents) / len(percents)) if percents else 0,
        "histogram": histogram(percents),
        "stray": stray,
        "incomplete": incomplete,
    }
    return render("class.html.j2", view, lang)
