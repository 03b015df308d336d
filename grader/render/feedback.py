"""A student's feedback page for a batch: one self-contained HTML file with all their exercises.

It is what an instructor sends to the student, so it stands alone: inline CSS, no script, no
link to any other file of the batch (the per-exercise reports are not sent), and it prints. It
is a pure function of a plain :class:`FeedbackPage` (the batch builds it from the student's
gradebook row: :mod:`grader.lms.feedback`) and of the results of the exercises that were
graded; every value reaches the template as plain text, so the learner's output and file names
are always escaped. A result flagged for review says only that an instructor is looking: what
was flagged is for the instructor, not the student.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from grader.i18n import REPORT, labels, number, sentence
from grader.render.html import citations
from grader.render.templates import render
from grader.results import Result, Status, TestResult, failure_groups, group_devices, group_names
from grader.text import as_a_terminal_shows

MAX_TEXT_CHARS = 4000  # of one output or message: a page holds many exercises

# why an exercise of the assignment has no score of its own ("": it was graded)
NotGraded = Literal["", "missing", "unreadable", "not graded"]


@dataclass(frozen=True)
class ExerciseLine:
    """One exercise of the assignment as the student's grade counts it."""

    exercise: str
    status: str  # passed, failed, error; or why it was not graded (``not_graded``)
    not_graded: NotGraded
    score: float
    max_score: float
    weight: float
    message: str  # why it was unreadable or not graded, or the gradebook's note on it
    title: str  # the exercise's title (also where it has no result)
    result: Result | None  # its result, where it was graded


@dataclass(frozen=True)
class FeedbackPage:
    """Everything one student's page says, as plain values."""

    title: str
    student: str
    identity: tuple[tuple[str, str], ...]  # (label key in REPORT, value): ids the page shows
    final_percent: float | None  # None: nothing handed in
    missing_is_zero: bool  # nothing handed in counts as 0% (else the cell is left blank)
    weighted_percent: float | None  # before any late penalty
    days_late: int
    late_percent: float  # points the late rule took
    zero_after_days: int | None  # beyond this many days late, the grade is zero
    lateness: str  # what the platform does about lateness, where it applies the rule ("": here)
    lateness_label: str  # that sentence's key in REPORT (its translations)
    exercises: tuple[ExerciseLine, ...]  # in the assignment's order
    problems: tuple[str, ...]  # addressed to the student
    lateness_values: tuple[tuple[str, str], ...] = ()  # the lateness sentence's placeholders


def render_feedback(page: FeedbackPage, lang: str) -> str:
    """The feedback page of one student: the final grade and how it was reached, then every
    exercise in order."""
    lang = lang if lang in REPORT else "en"
    t = labels(REPORT, lang)
    view = {
        "title": page.title,
        "student": page.student,
        "identity": [(t[key], value) for key, value in page.identity],
        "final": _percent(page),
        "grade": _breakdown(page, t),
        "exercises": [_exercise(line, lang, t) for line in page.exercises],
        "problems": list(page.problems),
    }
    return render("feedback.html.j2", view, lang)


def _percent(page: FeedbackPage) -> str:
    """A percentage as the page shows it; nothing handed in reads as the export's cell does."""
    if page.final_percent is None:
        return "0%" if page.missing_is_zero else "—"
    return f"{number(page.final_percent)}%"


def _breakdown(page: FeedbackPage, t: dict[str, str]) -> list[str]:
    """The lines under the final grade that say how it differs from the exercises' score."""
    if page.weighted_percent is None:
        return [t["nothing_handed_in"]]
    if page.lateness:  # the platform applies the late rule, not this grade
        return [sentence(t, page.lateness_label, page.lateness_values, page.lateness)]
    if not page.days_late:
        return []
    days = page.days_late
    if not page.late_percent:
        return [late_free_line(days, page.zero_after_days, t)]
    lines = [
        t["before_penalty"].format(percent=number(page.weighted_percent)),
        t["late_by_one" if days == 1 else "late_by"].format(
            n=days, points=number(page.late_percent)
        ),
    ]
    if page.zero_after_days is not None and days > page.zero_after_days:
        lines.append(t["late_zero"].format(max=page.zero_after_days))
    elif page.final_percent == 0 and page.weighted_percent > 0:
        lines.append(t["late_floor"])
    return lines


def late_free_line(days: int, zero_after: int | None, t: dict[str, str]) -> str:
    """The one line for work handed in ``days`` late that the late rule took nothing from
    (``t``: the report's labels in the reader's language), without a final full stop: under
    "free for N days, then no credit" (``zero_after``) it says where the free days end. Every
    page and export that tells a student about such work says it with this line."""
    if zero_after is not None:
        key = "late_free_until_one" if days == 1 else "late_free_until"
        return t[key].format(n=days, max=zero_after)
    return t["late_free_one" if days == 1 else "late_free"].format(n=days)


def _exercise(line: ExerciseLine, lang: str, t: dict[str, str]) -> dict[str, Any]:
    graded = not line.not_graded
    reason = {
        "missing": t["exercise_missing"],
        "unreadable": line.message or t["exercise_unreadable"],
        "not graded": line.message or t["exercise_not_graded"],
    }.get(line.not_graded, "")
    result = line.result
    view: dict[str, Any] = {
        "id": line.exercise,
        "title": line.title,
        "weight": number(line.weight),
        "status": line.status,
        "score": f"{number(line.score)}/{number(line.max_score)}" if graded else "—",
        "reason": reason,
        "submission": result.submission if result else "",
        "review": bool(result and result.review),
        "notes": [],
        "failures": [],
        "passed": [],
        "not_run": [],
    }
    if result is None:
        view["notes"] = [line.message] if graded and line.message else []
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
    output, cut = _cap(as_a_terminal_shows(first.output))
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
        "diagnosis": None if d is None else d.to_dict() | {"teaches": citations(d.teaches, lang)},
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
