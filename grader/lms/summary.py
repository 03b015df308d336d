"""What the instructor reads at the end of a batch: per student, everything that was not a
plain "one file per exercise, named as asked": missing and unreadable work, files ignored or
refused, duplicates and which one was graded, liberal name matches, unchanged starters,
lateness, and students on the roster without work or off the roster with work.

Every line here is also in the gradebook (problems) or the student's results (notes); this is
the short list to act on before publishing, so nothing needs to be found by scrolling a CSV.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.lms.grades import (
    NO_FILE,
    NO_MATCH,
    NO_WORK,
    UNREADABLE,
    ExerciseScore,
    GradeRow,
    number,
)
from grader.lms.handin import Handin
from grader.text import inert_line

MAX_LINES = 8  # per student; the rest are counted (all of them are in gradebook.csv)


@dataclass(frozen=True)
class Attention:
    student: str  # "key (Name)"
    lines: tuple[str, ...]


def attention(rows: list[GradeRow], handins: list[Handin]) -> list[Attention]:
    by_key = {h.key: h for h in handins}
    found = []
    for row in rows:
        handin = by_key.get(row.student.key) if row.roster not in ("absent", "ambiguous") else None
        lines: list[str] = []
        if row.roster == "absent":
            lines.append(
                "on the roster, no handin known to be theirs"
                if row.withheld
                else "on the roster, nothing handed in"
            )
            lines += [p for p in row.problems if p not in (NO_WORK, NO_MATCH)]
        elif row.roster == "ambiguous":
            lines += list(row.problems)
        else:
            missing = [s.exercise for s in row.scores if s.status == NO_FILE]
            if missing:
                lines.append(f"missing: {', '.join(missing)}")
            unreadable = [s.exercise for s in row.scores if s.status == UNREADABLE]
            if unreadable:  # the problems below say why
                lines.append(f"unreadable: {', '.join(unreadable)}")
            for score in row.scores:
                if score.status == "error":  # the file did not run: name it and say why
                    lines.append(_error_line(score, handin))
            lines += [p for p in row.problems if not p.startswith(tuple(missing))]
            # a file flagged for review (it reaches into internals, or could not be read as
            # Python reads it) lost the checks resting on its own process's measurements: the
            # gradebook's column said so, and this list did not
            lines += [f"needs review: {note}" for note in row.review]
            if handin is not None:
                lines += handin.notes
            if row.days_late:
                lines.append(
                    f"{row.days_late} day(s) late: -{number(row.late_percent)} percentage points"
                )
        lines = list(dict.fromkeys(lines))  # a problem noted twice is said once
        if not lines:
            continue
        if len(lines) > MAX_LINES:
            rest = len(lines) - MAX_LINES + 1
            lines = [*lines[: MAX_LINES - 1], f"… and {rest} more (see gradebook.csv)"]
        name = row.student.name
        label = (
            f"{row.student.key} ({name})" if name and name != row.student.key else row.student.key
        )
        found.append(Attention(label, tuple(lines)))
    return found


def _error_line(score: ExerciseScore, handin: Handin | None) -> str:
    """``exercise-07: alice/ex7.py could not run: SyntaxError ...``: the file as handed in,
    and the first line of what its learner was told."""
    submitted = handin.files.get(score.exercise) if handin is not None else None
    shown = submitted.shown if submitted is not None else score.exercise
    why = next(
        (t.output.strip().splitlines()[0] for t in score.tests if t.output.strip()),
        score.message.strip().splitlines()[0] if score.message.strip() else "",
    )
    line = f"{score.exercise}: {inert_line(shown)} could not run"
    return line + (f": {inert_line(why[:200])}" if why else "")
