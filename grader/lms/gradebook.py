"""From a class's results to what an instructor files: gradebook, Gradescope results, class stats.

Pure functions of result JSON and the roster: the same results always give byte-identical
files (students and exercises sorted, no timestamps, no timings), so grading a class twice gives
identical gradebooks.
"""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from grader.lms import spreadsheet
from grader.results import Result, Status, number

GRADEBOOK_VERSION = 1


@dataclass
class Cell:
    """One student's outcome on one exercise."""

    status: str  # passed, failed, error, missing, unreadable, not graded
    score: float = 0.0
    max_score: float = 0.0
    result: Result | None = None
    result_path: str = ""  # relative to the output folder
    report_path: str = ""


@dataclass
class Row:
    student: str
    cells: dict[str, Cell] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    def total(self, exercises: list[str], maxima: dict[str, float]) -> tuple[float, float]:
        score = sum(self.cells[e].score for e in exercises if e in self.cells)
        return score, sum(maxima[e] for e in exercises)

    def review(self) -> list[str]:
        """What an instructor must look at before trusting this row: reach-ins into the
        grader's or PyTorch's internals, per exercise (see grader.testing.measured)."""
        return [
            f"{exercise} line {note.line}: {note.message}"
            for exercise, cell in sorted(self.cells.items())
            if cell.result is not None
            for note in cell.result.review
        ]

    def percent(self, exercises: list[str], maxima: dict[str, float]) -> float:
        total, maximum = self.total(exercises, maxima)
        return 100 * total / maximum if maximum else 0.0


def exercise_maxima(
    rows: list[Row], exercises: list[str], fallback: dict[str, float]
) -> dict[str, float]:
    """The maximum of each exercise: what graded submissions could score (CUDA cases that were
    skipped count for nobody), or the spec's CPU points when nobody submitted it."""
    maxima = {}
    for exercise in exercises:
        graded = [
            r.cells[exercise].max_score
            for r in rows
            if exercise in r.cells and r.cells[exercise].result is not None
        ]
        maxima[exercise] = max(graded) if graded else fallback.get(exercise, 0.0)
    return maxima


def gradebook_csv(rows: list[Row], exercises: list[str], maxima: dict[str, float]) -> str:
    out = io.StringIO()
    writer = spreadsheet.writer(out)
    writer.writerow(["student", *exercises, "total", "max", "percent", "problems", "needs_review"])
    writer.writerow(
        [
            "(max)",
            *[number(maxima[e]) for e in exercises],
            number(sum(maxima.values())),
            "",
            "",
            "",
            "",
        ]
    )
    for row in rows:
        total, maximum = row.total(exercises, maxima)
        cells = []
        for exercise in exercises:
            cell = row.cells.get(exercise)
            cells.append(number(cell.score) if cell is not None and cell.result is not None else "")
        percent = f"{row.percent(exercises, maxima):.1f}" if maximum else ""
        writer.writerow(
            [
                row.student,
                *cells,
                number(total),
                number(maximum),
                percent,
                "; ".join(row.problems),
                "; ".join(row.review()),
            ]
        )
    return out.getvalue()


def gradebook_json(
    rows: list[Row], exercises: list[str], maxima: dict[str, float], titles: dict[str, str]
) -> str:
    students = []
    for row in rows:
        total, maximum = row.total(exercises, maxima)
        entries = {}
        for exercise in exercises:
            cell = row.cells.get(exercise, Cell("missing", max_score=maxima[exercise]))
            entries[exercise] = {
                "status": cell.status,
                "score": cell.score,
                "max_score": maxima[exercise],
                "result": cell.result_path,
                "report": cell.report_path,
            }
        students.append(
            {
                "student": row.student,
                "total": total,
                "max": maximum,
                "exercises": entries,
                "problems": row.problems,
                "needs_review": row.review(),
            }
        )
    data = {
        "gradebook_version": GRADEBOOK_VERSION,
        "exercises": [
            {"id": e, "title": titles.get(e, ""), "max_score": maxima[e]} for e in exercises
        ],
        "students": students,
    }
    return json.dumps(data, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def gradescope_results(row: Row, exercises: list[str], maxima: dict[str, float]) -> str:
    """A Gradescope autograder ``results.json`` for one student (one test per graded case)."""
    tests = []
    for exercise in exercises:
        cell = row.cells.get(exercise)
        if cell is None or cell.result is None:
            reason = {
                "missing": "No file was submitted for this exercise.",
                "unreadable": "The submitted file could not be read.",
            }.get(cell.status if cell else "missing", "Not graded.")
            tests.append(
                {
                    "name": f"{exercise}: submission",
                    "score": 0,
                    "max_score": maxima[exercise],
                    "status": "failed",
                    "output": reason,
                    "visibility": "visible",
                }
            )
            continue
        for test in cell.result.tests:
            if test.status is Status.SKIPPED:
                continue
            output = test.message
            if test.diagnosis is not None:
                output += f"\n\n{test.diagnosis.title}: {test.diagnosis.fix}"
            tests.append(
                {
                    "name": f"{exercise}: {test.key}",
                    "score": test.points,
                    "max_score": test.max_points,
                    "status": "passed" if test.status is Status.PASSED else "failed",
                    "output": output,
                    "visibility": "visible",
                }
            )
    total, _ = row.total(exercises, maxima)
    data = {"score": total, "tests": tests, "visibility": "visible", "stdout_visibility": "hidden"}
    notes = row.problems + [f"Needs review: {text}" for text in row.review()]
    if notes:
        data["output"] = "\n".join(notes)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


# ---------------------------------------------------------------------------------------------
# Class statistics for the class report


def class_stats(
    rows: list[Row], exercises: list[str], maxima: dict[str, float], titles: dict[str, str]
) -> dict[str, Any]:
    percents = [row.percent(exercises, maxima) for row in rows]
    per_exercise = []
    for exercise in exercises:
        cells = [
            r.cells[exercise]
            for r in rows
            if exercise in r.cells and r.cells[exercise].status != "missing"
        ]
        graded = [c.result for c in cells if c.result is not None]
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
                    seen.add(test.diagnosis.id)  # count each misconception once per student
                    diagnoses[(test.diagnosis.id, test.diagnosis.title)] += 1
        per_exercise.append(
            {
                "id": exercise,
                "title": titles.get(exercise, ""),
                "submitted": len(cells),
                "graded": len(graded),
                "passed": len(passed),
                "pass_rate": round(100 * len(passed) / len(graded)) if graded else 0,
                "mean": (sum(c.score for c in graded) / len(graded)) if graded else 0.0,
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
