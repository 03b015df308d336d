"""The class report of a batch (``DIR/index.html``): the gradebook as a table, the score
distribution, pass rates per exercise and per test, and the most frequent misconceptions."""

from __future__ import annotations

from typing import Any

from grader.render.charts import histogram
from grader.render.templates import render


def render_class(
    rows: list[Any],
    columns: list[str],
    maxima: dict[str, float],
    titles: dict[str, str],
    stats: dict[str, Any],
    stray: list[str],
    lang: str,
) -> str:
    students = []
    for row in rows:
        total, maximum = row.total(columns, maxima)
        cells = []
        for exercise in columns:
            cell = row.cells.get(exercise)
            cells.append(
                {
                    "status": cell.status if cell else "missing",
                    "score": f"{cell.score:g}" if cell and cell.result is not None else "",
                    "report": cell.report_path if cell else "",
                }
            )
        students.append(
            {
                "id": row.student,
                "cells": cells,
                "total": f"{total:g}",
                "max": f"{maximum:g}",
                "percent": round(row.percent(columns, maxima)),
                "problems": row.problems,
            }
        )
    percents = stats["percents"]
    view = {
        "students": students,
        "columns": [
            {"id": e, "title": titles.get(e, ""), "max": f"{maxima[e]:g}"} for e in columns
        ],
        "exercises": [
            dict(e, mean=f"{e['mean']:.1f}", max=f"{e['max']:g}") for e in stats["exercises"]
        ],
        "count": stats["students"],
        "mean": round(sum(percents) / len(percents)) if percents else 0,
        "histogram": histogram(percents),
        "stray": stray,
    }
    return render("class.html.j2", view, lang)
