"""Per-student due dates (``extensions``): a Canvas assignment override, a Moodle user override
or extension. Read strictly, checked against the class, and applied by the late rule to that
student alone, through the same download and exports as everyone else."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms.assignment import (
    Assignment,
    LatePolicy,
    check_extensions,
    late_penalty,
    load_assignment,
    read_roster,
)
from grader.lms.grades import ExerciseScore, Student, build_row, build_rows
from grader.lms.handin import Handin
from grader.lms.intake import read_submissions
from grader.lms.platforms import by_name
from tests.lms.builders import exercises, write
from tests.lms.classes import roster_text, same_class
from tests.lms.test_platforms import ASSIGNMENT, by_email, grade


def extended(who: str) -> str:
    """The class's assignment, with one student's due date 3 days later."""
    return ASSIGNMENT + f"extensions:\n  '{who}': 2026-12-04T20:00:00+00:00\n"


def class_rows(tmp_path: Path, spec: str, layout: str = "gradescope") -> list:
    """The class of ``same_class`` from ``layout``'s download, graded under ``spec``, with the
    check the batch makes before grading."""
    write(tmp_path / "roster.csv", roster_text())
    assignment = load_assignment(write(tmp_path / "week-3.yaml", spec))
    download = same_class(layout, tmp_path / layout)
    intake = read_submissions(download, staging=tmp_path / "staging", exercises=exercises())
    roster = read_roster(tmp_path / "roster.csv")
    check_extensions(assignment, roster, intake.handins)
    return build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        roster,
        lateness=by_name(layout).lateness,
    )


@pytest.mark.parametrize("who", ["1003", "ann@example.edu", "ANN@example.edu", "4713"])
def test_an_extended_student_is_not_penalised_and_no_one_else_gains(tmp_path, who):
    """Ann handed in 2 days late (-20) and Kim 4 (no credit, max_days 3); Ann has an extension
    to 3 days after the due date, named by SID, e-mail (any case) or user id: she loses
    nothing; Kim, without one, still gets no credit. There was no way to say so: Ann lost 20."""
    rows = by_email(class_rows(tmp_path, extended(who)))
    ann, kim = rows["ann@example.edu"], rows["kim@example.edu"]
    assert (ann.days_late, ann.late_percent, ann.final_percent) == (0, 0.0, 100.0)
    assert (kim.days_late, kim.late_percent, kim.final_percent) == (4, 100.0, 0.0)


def test_an_extension_counts_the_late_days_from_the_students_own_due_date(tmp_path):
    """Kim (4 days late) with an extension of 2 days is 2 days late: -20, not no credit."""
    spec = ASSIGNMENT + "extensions: {'1004': 2026-12-03T20:00:00+00:00}\n"
    kim = by_email(class_rows(tmp_path, spec))["kim@example.edu"]
    assert (kim.days_late, kim.late_percent, kim.final_percent) == (2, 20.0, 80.0)


def test_an_extension_reaches_the_moodle_file_dates_too(tmp_path):
    """Moodle gives file dates only (never penalised): Ann's, 2 days after the class's due
    date but before her own, are not listed as late."""
    rows = by_email(class_rows(tmp_path, extended("ann@example.edu"), "moodle"))
    assert not any("after the due date" in p for p in rows["ann@example.edu"].problems)
    assert any("after the due date" in p for p in rows["kim@example.edu"].problems)


def test_an_extension_for_no_student_of_the_class_is_an_error(tmp_path):
    """A mistyped id ("10003") left the student with the class's due date, penalised."""
    with pytest.raises(SpecError) as caught:
        class_rows(tmp_path, extended("10003"))
    text = str(caught.value)
    assert "extensions.10003" in text and "names no student of the roster or the download" in text
    assert "did you mean '1003'?" in (caught.value.fix or "")


def test_two_due_dates_for_one_student_is_an_error(tmp_path):
    spec = ASSIGNMENT + (
        "extensions:\n  '1003': 2026-12-04T20:00:00+00:00\n"
        "  ann@example.edu: 2026-12-05T20:00:00+00:00\n"
    )
    with pytest.raises(SpecError, match="gives one student 2 due dates"):
        class_rows(tmp_path, spec)


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        ("extensions: {4713: 2026-12-04T20:00:00+00:00}", "is not quoted text"),
        ("extensions: {'4713': 2026-12-04}", "is a date without a time"),
        ("extensions: {'4713': '2026-12-04T20:00:00'}", "has no time zone"),
        ("extensions: {'4713': soon}", "is not a date and time"),
        ("extensions: ['4713']", "expected a mapping"),
        ("extensions: {' ': 2026-12-04T20:00:00+00:00}", "is not a student's id"),
        (
            "extensions: {'Ann@x.edu': 2026-12-04T20:00:00+00:00, "
            "'ann@x.edu': 2026-12-05T20:00:00+00:00}",
            "names the student of 'Ann@x.edu' again",
        ),
    ],
)
def test_extensions_are_read_strictly(tmp_path, lines, message):
    write(tmp_path / "roster.csv", roster_text())
    with pytest.raises(SpecError, match=message):
        load_assignment(write(tmp_path / "week-3.yaml", f"{ASSIGNMENT}{lines}\n"))


def test_extensions_need_a_due_date(tmp_path):
    write(tmp_path / "roster.csv", roster_text())
    spec = ASSIGNMENT.replace("due: 2026-12-01T20:00:00+00:00\n", "")
    spec += "extensions: {'4713': 2026-12-04T20:00:00+00:00}\n"
    with pytest.raises(SpecError, match="needs the assignment's `due`"):
        load_assignment(write(tmp_path / "week-3.yaml", spec))


def test_extensions_are_bounded(tmp_path):
    write(tmp_path / "roster.csv", roster_text())
    many = "".join(f"  's{i}': 2026-12-04T20:00:00+00:00\n" for i in range(10_001))
    with pytest.raises(SpecError, match="more than 10000"):
        load_assignment(write(tmp_path / "week-3.yaml", f"{ASSIGNMENT}extensions:\n{many}"))


DUE = datetime(2026, 3, 28, 23, 59, tzinfo=timezone(timedelta(hours=1)))
times = st.integers(-3 * 24 * 60, 12 * 24 * 60).map(lambda m: DUE + timedelta(minutes=m))


@settings(max_examples=300, deadline=None)
@given(
    submitted=times,
    extension=times,
    grace=st.sampled_from([0.0, 10.0, 1440.0]),
    per_day=st.sampled_from([0.0, 10.0, 25.0]),
    max_days=st.one_of(st.none(), st.integers(0, 5)),
    after=st.sampled_from(["zero", "cap"]),
)
def test_the_late_rule_with_and_without_an_extension(
    submitted, extension, grace, per_day, max_days, after
):
    """The extended student's row is the late rule at their own due date (grace and rule
    unchanged), whoever else is in the class; a student without one keeps the class's."""
    assignment = Assignment(
        "w", (("exercise-01", 1.0),), Path("w.yaml"), due=DUE, grace_minutes=grace,
        late=LatePolicy(per_day, max_days, after if max_days is not None else "zero"),
        extensions=(("4713", extension),),
    )  # fmt: skip
    scores = {"exercise-01": ExerciseScore("exercise-01", "passed", 4.0, 4.0)}
    ann = build_row(Student("4713", "Ann"), scores, assignment, submitted_at=submitted)
    bob = build_row(Student("4712", "Bob"), scores, assignment, submitted_at=submitted)
    own = late_penalty(submitted, replace(assignment, due=extension, extensions=()))
    same = late_penalty(submitted, replace(assignment, extensions=()))
    assert (ann.days_late, ann.late_percent) == own
    assert (bob.days_late, bob.late_percent) == same
    if extension >= DUE:  # a later due date never costs more
        assert ann.late_percent <= bob.late_percent


def test_an_unknown_id_without_a_roster_is_checked_against_the_download(tmp_path):
    assignment = Assignment(
        "w", (("exercise-01", 1.0),), tmp_path / "w.yaml", due=DUE,
        extensions=(("s7", DUE),),
    )  # fmt: skip
    check_extensions(assignment, None, [Handin("s7")])
    with pytest.raises(SpecError, match="names no student"):
        check_extensions(assignment, None, [Handin("s8")])
