"""A student's feedback page from the gradebook's row: the plain view the renderer takes.

The page itself is :mod:`grader.render.feedback`, a pure function of a
:class:`~grader.render.feedback.FeedbackPage`; this module decides what of the row and the
assignment the student is shown (their ids, the grade and how the late rule changed it, every
exercise in the assignment's order), so that ``render`` knows nothing of rows, rosters or
assignments.
"""

from __future__ import annotations

import dataclasses

from grader.lms.assignment import Assignment
from grader.lms.grades import NO_FILE, NOT_GRADED, UNREADABLE, ExerciseScore, GradeRow
from grader.lms.handin import Said, for_learner, in_lang
from grader.render.feedback import ExerciseLine, FeedbackPage, NotGraded, render_feedback
from grader.results import Result

_NOT_GRADED: dict[str, NotGraded] = {
    NO_FILE: "missing",
    UNREADABLE: "unreadable",
    NOT_GRADED: "not graded",
}


def feedback_page(
    row: GradeRow,
    results: dict[str, Result],
    assignment: Assignment,
    titles: dict[str, str] | None = None,
    lang: str = "en",
) -> FeedbackPage:
    """What the page of ``row``'s student says (``results``: the exercises that were graded,
    by exercise id; ``titles`` names every exercise, those without a result too), intake's
    notes in ``lang`` where they come in both languages (``grader.lms.handin.Said``)."""
    student = row.student
    shown = student.name or student.key
    late = assignment.late
    return FeedbackPage(
        title=assignment.title or assignment.name,
        student=shown,
        identity=tuple(
            (key, value)
            for key, value in (
                ("student_id", student.lms_id),
                ("sid", student.sid),
                ("email", student.email),
            )
            if value and value != shown
        ),
        final_percent=row.final_percent,
        missing_is_zero=assignment.missing == "zero",
        weighted_percent=row.weighted_percent,
        days_late=row.days_late,
        late_percent=row.late_percent,
        zero_after_days=late.zero_after if late is not None else None,
        lateness=row.lateness,
        lateness_label=row.lateness_label,
        lateness_values=row.lateness_values,
        exercises=tuple(
            _line(s, results.get(s.exercise), assignment, titles or {}, lang) for s in row.scores
        ),
        problems=for_learner(row.problems, lang),
    )


def feedback_html(
    row: GradeRow,
    results: dict[str, Result],
    assignment: Assignment,
    lang: str,
    titles: dict[str, str] | None = None,
) -> str:
    """The feedback page of ``row``'s student, rendered."""
    return render_feedback(feedback_page(row, results, assignment, titles, lang), lang)


def _line(
    score: ExerciseScore,
    result: Result | None,
    assignment: Assignment,
    titles: dict[str, str],
    lang: str,
) -> ExerciseLine:
    if result is not None and result.notes:  # already in the result's language, or Said
        result = dataclasses.replace(result, notes=tuple(in_lang(n, lang) for n in result.notes))
    # a reason the page's own words do not say in ``lang`` gives way to them ("" below)
    message = for_learner([score.message], lang)[0] if isinstance(score.message, Said) else ""
    if lang == "en" or not score.message:
        message = score.message
    return ExerciseLine(
        exercise=score.exercise,
        status=score.status,
        not_graded=_NOT_GRADED.get(score.status, ""),
        score=score.score,
        max_score=score.max_score,
        weight=assignment.weights.get(score.exercise, 0.0),
        message=message,
        title=(result.exercise_title if result else "") or titles.get(score.exercise, ""),
        result=result,
    )
