"""A student's feedback page for a batch: one self-contained HTML file with all their exercises.

It is what an instructor sends to the student, so it stands alone: inline CSS, no script, no
link to any other file of the batch (the per-exercise reports are not sent), and it prints. It
is a pure function of the student's gradebook row and the results of the exercises that were
graded; every value reaches the template as plain text, so the learner's output and file names
are always escaped. A result flagged for review says only that an instructor is looking: what
was flagged is for the instructor, not the student.
"""

from __future__ import annotations

from typing import Any

from grader.i18n import REPORT, labels
from grader.lms.assignment import Assignment
from grader.lms.grades import NO_FILE, NOT_GRADED, UNREADABLE, ExerciseScore, GradeRow, number
from grader.render.html import citations
from grader.render.templates import render
from grader.results import Result, Status, TestResult, failure_groups, group_devices, group_names

MAX_TEXT_CHARS = 4000  # of one output or message: a page holds many exercises


def render_feedback(
    row: GradeRow,
    results: dict[str, Result],
    assignment: Assignment,
    lang: str,
    titles: dict[str, str] | None = None,
) -> str:
    """The feedback page of one student: the final grade and how it was reached, then every
    exercise of ``row`` in order (``results`` holds those that were graded; ``titles`` names
    every exercise, those without a result too)."""
    lang = lang if lang in REPORT else "en"
    t = labels(REPORT, lang)
    exercises = [_exercise(s, results.get(s.exercise), assignment, lang, t) for s in row.scores]
    for view in exercises:
        view["title"] = view["title"] or (titles or {}).get(view["id"], "")
    student = row.student
    view = {
        "title": assignment.title or assignment.name,
        "student": student.name or student.key,
        "identity": [
            (t[key], value)
            for key, value in (
                ("student_id", student.lms_id),
                ("sid", student.sid),
                ("email", student.email),
            )
            if value and value != (student.name or student.key)
        ],
        "final": _percent(row.final_percent, assignment),
        "grade": _breakdown(row, assignment, t),
        "exercises": exercises,
        "problems": list(row.problems),
    }
    return render("feedback.html.j2", view, lang)


def _percent(value: float | None, assignment: Assignment) -> str:
    """A percentage as the page shows it; nothing handed in reads as the export's cell does."""
    if value is None:
        return "0%" if assignment.missing == "zero" else "—"
    return f"{number(value)}%"


def _breakdown(row: GradeRow, assignment: Assignment, t: dict[str, str]) -> list[str]:
    """The lines under the final grade that say how it differs from the exercises' score."""
    if row.weighted_percent is None:
        return [t["nothing_handed_in"]]
    if row.lateness:  # the platform applies the late rule, not this grade
        return [t.get(row.lateness_label, row.lateness)]
    if not row.days_late:
        return []
    days = row.days_late
    if not row.late_percent:
        return [t["late_free_one" if days == 1 else "late_free"].format(n=days)]
    lines = [
        t["before_penalty"].format(percent=number(row.weighted_percent)),
        t["late_by_one" if days == 1 else "late_by"].format(
            n=days, points=number(row.late_percent)
        ),
    ]
    policy = assignment.late
    if (
        policy
        and policy.max_days is not None
        and days > policy.max_days
        and policy.after_max_days == "zero"
    ):
        lines.append(t["late_zero"].format(max=policy.max_days))
    elif row.final_percent == 0 and row.weighted_percent > 0:
        lines.append(t["late_floor"])
    return lines


def _exercise(
    score: ExerciseScore,
    result: Result | None,
    assignment: Assignment,
    lang: str,
    t: dict[str, str],
) -> dict[str, Any]:
    graded = score.status not in (NO_FILE, UNREADABLE, NOT_GRADED)
    reason = {
        NO_FILE: t["exercise_missing"],
        UNREADABLE: score.message or t["exercise_unreadable"],
        NOT_GRADED: score.message or t["exercise_not_graded"],
    }.get(score.status, "")
    view: dict[str, Any] = {
        "id": score.exercise,
        "title": result.exercise_title if result else "",
        "weight": number(assignment.weights.get(score.exercise, 0.0)),
        "status": score.status,
        "score": f"{number(score.score)}/{number(score.max_score)}" if graded else "—",
        "reason": reason,
        "submission": result.submission if result else "",
        "review": bool(result and result.review),
        "notes": [],
        "failures": [],
        "passed": [],
        "not_run": [],
    }
    if result is None:
        view["notes"] = [score.message] if graded and score.message else []
        return view
    skipped = result.skipped
    reasons = {s.message for s in skipped}
    # the engine's own note on the skipped tests: the one-line summary below replaces it
    view["notes"] = [
        n for n in result.notes if not (reasons and all(r and r in n for r in reasons))
    ]
    view["failures"] = [_failure(result, group, lang) for group in failure_groups(result.tests)]
    view["passed"] = [test.key for test in result.tests if test.status is Status.PASSED]
    view["not_run"] = _not_run(skipped, result.environment.cuda_available, t)
    return view


def _failure(result: Result, group: list[TestResult], lang: str) -> dict[str, Any]:
    """One distinct failure (the same message on several tests or devices is one thing to fix)."""
    first = group[0]
    frame = first.frames[-1] if first.frames else None
    cell = result.where(frame.line) if frame and frame.line else None
    d = first.diagnosis
    output, cut = _cap(first.output)
    return {
        "name": group_names(group),
        "devices": group_devices(group),
        "status": first.status.value,
        "description": first.description if len({t.name for t in group}) == 1 else "",
        "message": _cap(first.message)[0],
        # in a notebook, the cell and its line (what where.html.j2 shows), as in the report
        "where": {
            "line": frame.line,
            "function": frame.function,
            "code": frame.code,
            "cell": cell[0] if cell else None,
            "cell_line": cell[1] if cell else None,
            "count": cell[2] if cell else None,
        }
        if frame
        else None,
        "diagnosis": None
        if d is None
        else {
            "id": d.id,
            "title": d.title,
            "explanation": d.explanation,
            "fix": d.fix,
            "teaches": citations(d.teaches, lang),
        },
        "output": output,
        "output_cut": first.output_truncated or cut,
    }


def _not_run(skipped: tuple[TestResult, ...], cuda_available: bool, t: dict[str, str]) -> list[str]:
    """One line per kind of skipped case, instead of a list of tests that did not run."""
    lines = []
    for on_cuda in (True, False):
        tests = [s for s in skipped if (s.device == "cuda") is on_cuda]
        if not tests:
            continue
        if on_cuda and not cuda_available:
            reason = t["no_gpu"]
        else:
            reason = "; ".join(sorted({s.message.rstrip("。.") for s in tests}))
        key = ("not_run_cuda" if on_cuda else "not_run") + ("_one" if len(tests) == 1 else "")
        lines.append(t[key].format(n=len(tests), reason=reason))
    return lines


def _cap(text: str) -> tuple[str, bool]:
    """``text`` cut to MAX_TEXT_CHARS, between two words where one ends in the last 200
    characters, with an ellipsis; and whether it was (the page then says so)."""
    if len(text) <= MAX_TEXT_CHARS:
        return text, False
    cut = text[:MAX_TEXT_CHARS]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    if space >= MAX_TEXT_CHARS - 200:
        cut = cut[:space]
    return f"{cut} …", True
