"""The workspace dashboard (``grade report``): every exercise with its status and last score,
and the concepts mastered so far."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from grader.render.templates import render


def dashboard_view(entries: list[dict[str, Any]], lang: str) -> dict[str, Any]:
    """Plain values for the dashboard; ``entries`` come from :func:`workspace_entries`."""
    passed = [e for e in entries if e["status"] == "passed"]
    mastered = sorted({c for e in passed for c in e["concepts"]})
    all_concepts = sorted({c for e in entries for c in e["concepts"]})
    return {
        "entries": entries,
        "passed": len(passed),
        "total": len(entries),
        "percent": round(100 * len(passed) / len(entries)) if entries else 0,
        "mastered": mastered,
        "concepts": [{"name": c, "mastered": c in mastered} for c in all_concepts],
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
                "max_score": f"{result.max_score:g}" if result else f"{spec.max_points}",
                "percent": round(result.percent) if result else 0,
                "report": _relative(report, report_dir) if report.exists() else "",
                "graded_at": str(workspace.entry(spec.id).get("graded_at") or ""),
            }
        )
    return rows


def _relative(path: Path, start: Path) -> str:
    return Path(os.path.relpath(path, start)).as_posix()
