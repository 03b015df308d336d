"""The class's own gradebook (``gradebook.csv``, ``gradebook.json``) and the class statistics.

Pure functions of the grade rows (:mod:`grader.lms.grades`): the same grades always give
byte-identical files (rows sorted, no timestamps, no timings), so grading a class twice gives
identical gradebooks. The columns are the assignment's exercises, whatever students handed in.

A cell never looks like a grade when it is not one: an exercise without a result says
``missing``, ``unreadable`` or ``not graded`` in words, and a gradebook written while some
files are still ungraded (an interrupted run) carries an ``(INCOMPLETE)`` row right under the
header, so that nobody uploads it by mistake.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from typing import Any

from grader.lms import spreadsheet
from grader.lms.assignment import Assignment
from grader.lms.grades import NOT_GRADED, GradeRow, number
from grader.results import Result, Status
from grader.text import inert_data

GRADEBOOK_VERSION = 2
INCOMPLETE = "(INCOMPLETE)"
MAXIMUM = "(max)"
HEADER = ("student", "name", "email", "sid")
TAIL = ("percent", "days_late", "late_penalty", "final", "problems", "needs_review")


def exercise_maxima(
    rows: list[GradeRow], assignment: Assignment, fallback: dict[str, float]
) -> dict[str, float]:
    """The maximum of each exercise: what graded submissions could score (CUDA cases that were
    skipped count for nobody), or the spec's CPU points when nobody's file was graded."""
    maxima = {}
    for exercise in assignment.ids:
        graded = [s.max_score for r in rows if (s := r.score(exercise)) is not None and s.graded]
        maxima[exercise] = max(graded) if graded else fallback.get(exercise, 0.0)
    return maxima


def cell(row: GradeRow, exercise: str) -> str:
    """One exercise of one row as the CSV shows it: the points, or why there are none."""
    score = row.score(exercise)
    if score is None:
        return "missing"
    return number(score.score) if score.graded else score.status


def _percent(value: float | None) -> str:
    return "" if value is None else number(value)


def gradebook_csv(
    rows: list[GradeRow], assignment: Assignment, maxima: dict[str, float], *, incomplete: str = ""
) -> str:
    """The class's gradebook: who (key, name, e-mail, SID), each exercise's points, the
    weighted percentage, the days late and the percentage points they cost, the final
    percentage, the problems and what needs review. ``incomplete`` (why) adds the
    ``(INCOMPLETE)`` row."""
    out = io.StringIO()
    writer = spreadsheet.writer(out)
    exercises = list(assignment.ids)
    writer.writerow([*HEADER, *exercises, *TAIL])
    blank = [""] * (len(HEADER) - 1)
    if incomplete:
        writer.writerow(
            [INCOMPLETE, *blank, *[""] * len(exercises), "", "", "", "", incomplete, ""]
        )
    writer.writerow(
        [MAXIMUM, *blank, *(number(maxima[e]) for e in exercises), "100", "", "", "100", "", ""]
    )
    for row in rows:
        student = row.student
        writer.writerow(
            [
                student.key,
                student.name,
                student.email,
                student.sid,
                *(cell(row, e) for e in exercises),
                NOT_GRADED if row.pending else _percent(row.weighted_percent),
                str(row.days_late) if row.days_late else "",
                number(row.late_percent) if row.late_percent else "",
                NOT_GRADED if row.pending else _percent(row.final_percent),
                "; ".join(row.problems),
                "; ".join(row.review),
            ]
        )
    return out.getvalue()


def gradebook_json(
    rows: list[GradeRow],
    assignment: Assignment,
    maxima: dict[str, float],
    titles: dict[str, str],
    *,
    incomplete: str = "",
    chosen: str = "",
    layout: str = "",
) -> str:
    """Everything the CSV holds, plus each exercise's status, weight and the files behind it
    (paths relative to the output folder), for tools that read the batch's output."""
    students = []
    for row in rows:
        entries = {}
        for score in row.scores:
            folder = f"students/{row.student.key}"
            entries[score.exercise] = {
                "status": score.status,
                "score": score.score if score.graded else None,
                "max_score": score.max_score if score.graded else maxima[score.exercise],
                "result": f"{folder}/{score.exercise}.json" if score.graded else "",
                "report": f"{folder}/{score.exercise}.html" if score.graded else "",
                "message": score.message if not score.graded else "",
            }
        student = row.student
        students.append(
            {
                "student": student.key,
                "name": student.name,
                "email": student.email,
                "sid": student.sid,
                "lms_id": student.lms_id,
                "roster": row.roster,
                "exercises": entries,
                "percent": None if row.pending else row.weighted_percent,
                "days_late": row.days_late,
                "late_penalty": row.late_percent,
                "final": None if row.pending else row.final_percent,
                "pending": row.pending,
                "submitted_at": row.submitted_at.isoformat() if row.submitted_at else None,
                "problems": list(row.problems),
                "needs_review": row.review,
                "participant": student.participant,
                "lateness": row.lateness,
                "withheld": row.withheld,
            }
        )
    data = {
        "gradebook_version": GRADEBOOK_VERSION,
        "assignment": assignment.name,
        "complete": not incomplete,
        "incomplete": incomplete,
        "exercises_chosen": chosen,
        "layout": layout,
        "exercises": [
            {"id": e, "title": titles.get(e, ""), "weight": w, "max_score": maxima[e]}
            for e, w in assignment.exercises
        ],
        "students": students,
    }
    return json.dumps(inert_data(data), indent=2, ensure_ascii=False, sort_keys=True) + "\n"


# ---------------------------------------------------------------------------------------------
# Class statistics for the class report


def class_stats(
    rows: list[GradeRow],
    results: dict[tuple[str, str], Result],
    assignment: Assignment,
    maxima: dict[str, float],
    titles: dict[str, str],
) -> dict[str, Any]:
    """Per exercise: handed in, graded, passed, mean score, pass rate per test and the most
    frequent misconceptions (each counted once per student); and every row's final percentage.
    ``results`` holds the graded results by (student key, exercise)."""
    percents = [row.final_percent or 0.0 for row in rows]
    per_exercise = []
    for exercise in assignment.ids:
        scores = [(r, s) for r in rows if (s := r.score(exercise)) is not None]
        handed_in = [s for _, s in scores if s.handed_in]
        graded = [
            found
            for r, s in scores
            if s.graded and (found := results.get((r.student.key, exercise))) is not None
        ]
        passed = [r for r in graded if r.status is Status.PASSED]
        test_stats: dict[str, list[int]] = {}
        diagnoses: Counter[tuple[str, str]] = Counter()
        for result in graded:
            seen = set()
            for test in result.tests:
                if test.status is Status.SKIPPED:
                    continue
                stat = test_stats.setdefault(test.key, [0, 0])
                stat[1] += 1
                stat[0] += test.status is Status.PASSED
                if test.diagnosis is not None and test.diagnosis.id not in seen:
                    seen.add(test.diagnosis.id)
                    diagnoses[(test.diagnosis.id, test.diagnosis.title)] += 1
        per_exercise.append(
            {
                "id": exercise,
                "title": titles.get(exercise, ""),
                "submitted": len(handed_in),
                "graded": len(graded),
                "passed": len(passed),
                "pass_rate": round(100 * len(passed) / len(graded)) if graded else 0,
                "mean": (sum(r.score for r in graded) / len(graded)) if graded else 0.0,
                "max": maxima[exercise],
                "tests": [
                    {"key": k, "passed": p, "graded": n, "rate": round(100 * p / n) if n else 0}
                    for k, (p, n) in test_stats.items()
                ],
                "diagnoses": [
                    {"id": i, "title": t, "count": n}
                    for (i, t), n in sorted(diagnoses.items(), key=lambda kv: (-kv[1], kv[0]))[:5]
                ],
            }
        )
    return {"students": len(rows), "percents": percents, "exercises": per_exercise}
