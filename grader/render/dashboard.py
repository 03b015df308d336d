"""The workspace dashboard (``grade report``): every exercise with its status and last score,
and the concepts mastered so far."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from grader.concepts import concept_name
from grader.i18n import REPORT, labels
from grader.render.templates import render


def dashboard_view(entries: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """Plain values for the dashboard; ``entries`` come from :func:`workspace_entries`. Kinds
    and concepts are slugs there and words in ``lang`` here (see grader.concepts)."""
    words = labels(REPORT, lang)
    passed = [e for e in entries if e["status"] == "passed"]
    mastered = sorted({c for e in passed for c in e["concepts"]})
    all_concepts = sorted({c for e in entries for c in e["concepts"]})
    shown = [
        {
            **e,
            "kind": words.get(f"kind_{e['kind']}", e["kind"]),
            "concepts": [concept_name(c, lang) for c in e["concepts"]],
        }
        for e in entries
    ]
    return {
        "entries": shown,
        "passed": len(passed),
        "total": len(entries),
        "percent": round(100 * len(passed) / len(entries)) if entries else 0,
        "mastered": [concept_name(c, lang) for c in mastered],
        "concepts": [
            {"name": concept_name(c, lang), "mastered": c in mastered} for c in all_concepts
        ],
        "lang": lang,
    }


def render_dashboard(entries: list[dict[str, Any]], lang: str) -> str:
    return render("dashboard.html.j2", dashboard_view(entries, lang), lang)


def workspace_entries(
    workspace: Any, specs: list[Any], lang: str, report_dir: Path
) -> list[dict[str, Any]]:
    """One row per exercise: its spec's title and concepts, and the last grading, if any."""
    rows = []
    for spec in specs:
        result = workspace.last_result(spec.id)
        status = workspace.status(spec)
        report = workspace.report_path(spec.id)
        rows.append(
            {
                "id": spec.id,
                "title": spec.title.get(lang),
                "kind": spec.kind,
                "concepts": list(spec.concepts),
                "status": {"not started": "not_started"}.get(status, status),
                "score": f"{result.score:g}" if result else "",
                # what the last grading could score, else what a grading here gives (the same
                # figure `grade list` shows: ExerciseSpec.points)
                "max_score": f"{result.max_score:g}" if result else f"{spec.points.here}",
                "cuda_points": 0 if result else spec.points.cuda,
                "percent": round(result.percent) if result else 0,
                "report": _relative(report, report_dir) if report.exists() else "",
                "graded_at": str(workspace.entry(spec.id).get("graded_at") or ""),
            }
        )
    return rows


def _relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path, start)).as_posix()
