"""Extensions given in Gradescope: ``/autograder/submission_metadata.json`` gives each user the
assignment as it applies to them (``users[i].assignment.due_date``; an extension moves it). The
autograder judged every student's lateness against the assignment's due date: a student
extended to Friday who handed in on Thursday lost 20 points. The metadata is hostile input:
any shape gives a result, and never a better grade than the evidence supports."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms import gradescope
from grader.lms.assignment import Assignment, LatePolicy, days_late, load_assignment
from grader.lms.grades import ExerciseScore, TestScore
from grader.lms.handin import Handin
from tests.lms.builders import write
from tests.lms.test_gradescope_metadata import values as any_values


def _json(value: object) -> bool:
    try:
        json.dumps(value, allow_nan=False)
    except ValueError:
        return False
    return True


values = any_values.filter(_json)  # what a JSON file can hold (no NaN, no Infinity)

DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)
SPEC = """\
format_version: 1
name: week-3
exercises: {exercise-01: 1}
due: 2026-12-01T23:59:00+00:00
late: {per_day_percent: 10, max_days: 3}
gradescope: {points: 100}
"""
ASSIGNMENT = Assignment("week-3", (("exercise-01", 1.0),), Path("week-3.yaml"), due=DUE,
                        late=LatePolicy(10.0, 3))  # fmt: skip
FULL = {"exercise-01": ExerciseScore("exercise-01", "passed", 4, 4, (TestScore("t", 4, 4, True),))}


def stamp(when: datetime) -> str:
    return when.astimezone(timezone(timedelta(hours=-8))).isoformat(timespec="microseconds")


def run(tmp: Path, created: datetime, users: list, class_due: datetime | None = DUE) -> dict:
    """results.json of a full-marks submission handed in at ``created``."""
    assignment = load_assignment(write(tmp / "week-3.yaml", SPEC))
    document = {
        "id": 1,
        "created_at": stamp(created),
        "assignment": {"due_date": stamp(class_due) if class_due else None, "late_due_date": None},
        "users": users,
    }
    path = write(tmp / "submission_metadata.json", json.dumps(document))
    meta = gradescope.read_run_metadata(path)
    assert meta.created_at == created  # the rest of the metadata is read whatever the users hold
    handin = Handin("1001", name="Jane Doe", submitted_at=meta.created_at)
    return json.loads(gradescope.finish_run(handin, meta, FULL, assignment))


def user(due: object = None, *, name: str = "Jane Doe", record: object = "dates") -> dict:
    person: dict = {"email": f"{name.split()[0].lower()}@example.edu", "id": 1, "name": name}
    if record == "dates":
        person["assignment"] = {"due_date": due, "late_due_date": None, "release_date": None}
    elif record is not None:
        person["assignment"] = record
    return person


def expected(created: datetime, due: datetime) -> float:
    """The score of full marks handed in at ``created`` for a student due at ``due``."""
    days = days_late(created, replace(ASSIGNMENT, due=due))
    return 0.0 if days > 3 else 100.0 - 10.0 * days


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    extension=st.integers(min_value=-3 * 24 * 60, max_value=10 * 24 * 60),
    handed=st.integers(min_value=-2 * 24 * 60, max_value=12 * 24 * 60),
)
def test_lateness_is_judged_against_the_students_own_due_date(tmp_path, extension, handed):
    own = DUE + timedelta(minutes=extension)
    created = DUE + timedelta(minutes=handed)
    data = run(tmp_path, created, [user(stamp(own))])
    assert data["score"] == expected(created, own)
    told = "your own due date in Gradescope" in data["output"]
    assert told == (own != DUE)


def test_an_extended_student_handing_in_before_it_loses_nothing(tmp_path):
    """The case as reported: extended to Friday, handed in Thursday (2 days after the class's
    due date): 80 of 100, where 100 was owed."""
    data = run(tmp_path, DUE + timedelta(days=2), [user(stamp(DUE + timedelta(days=3)))])
    assert data["score"] == 100.0
    assert "own due date in Gradescope, 2026-12-04" in data["output"]


def test_an_extension_ending_before_the_files_own_due_date_changes_nothing(tmp_path):
    """The assignment file gives everyone until Dec 5; Gradescope's class date is Dec 1 and
    Jane's extension Dec 3: she is judged as everyone is, by Dec 5."""
    assignment = load_assignment(write(tmp_path / "a.yaml", SPEC.replace("12-01T", "12-05T")))
    meta = gradescope.RunMetadata(
        created_at=DUE + timedelta(days=3, hours=1),
        due_date=DUE,
        user_due_dates=(DUE + timedelta(days=2),),
    )
    handin = Handin("1001", name="Jane Doe", submitted_at=meta.created_at)
    data = json.loads(gradescope.finish_run(handin, meta, FULL, assignment))
    assert data["score"] == 100.0 and "own due date" not in data["output"]


def test_a_user_without_an_own_date_keeps_the_assignments(tmp_path):
    """Gradescope's metadata before per-user dates, or a user record without them."""
    for person in (user(record=None), user(None), user(record={})):
        data = run(tmp_path, DUE + timedelta(days=1), [person])
        assert data["score"] == 90.0 and "own due date" not in data["output"]


def test_a_group_is_judged_by_its_earliest_own_date_and_told_so(tmp_path):
    late_one = user(stamp(DUE + timedelta(days=5)), name="Jane Doe")
    usual = user(stamp(DUE), name="Bob Smith")
    data = run(tmp_path, DUE + timedelta(days=2), [late_one, usual])
    assert data["score"] == 80.0
    assert "different due dates in Gradescope" in data["output"]
    both = [late_one, user(stamp(DUE + timedelta(days=4)), name="Bob Smith")]
    data = run(tmp_path, DUE + timedelta(days=2), both)
    assert data["score"] == 100.0 and "the earliest was used" in data["output"]


@settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(
        st.one_of(
            values,
            st.fixed_dictionaries({}, optional={"due_date": values, "late_due_date": values}),
            st.fixed_dictionaries({"due_date": st.text(max_size=40)}),
        ),
        min_size=1,
        max_size=3,
    ),
    handed=st.integers(min_value=0, max_value=6 * 24 * 60),
)
def test_any_shape_of_a_users_dates_gives_a_result_never_a_better_grade(tmp_path, records, handed):
    """A user's ``assignment`` of another shape, or a date that is not one: a result, never a
    traceback, never the submission time lost (nor its late penalty), and never a better
    score than the assignment's own due date gives, but where a readable date says so."""
    created = DUE + timedelta(minutes=handed)
    people = [user(record=r, name=f"User {i} Doe") for i, r in enumerate(records)]
    data = run(tmp_path, created, people)
    own, unread = [], False
    for record in records:
        due = record.get("due_date") if isinstance(record, dict) else None
        when = gradescope.parse_time(due) if isinstance(due, str) else None
        unread |= record is not None and (
            not isinstance(record, dict) or (due is not None and when is None)
        )
        own.append(when)
    if unread:
        assert data["score"] == expected(created, DUE)
        assert "could not be read" in data["output"]
    else:
        assert data["score"] == expected(created, min((o or DUE) for o in own))


def test_an_unreadable_due_date_of_gradescopes_is_said_not_silently_no_penalty(tmp_path):
    """Without a due date in the assignment file, Gradescope's is the late rule's: one that is
    not a time gave no penalty, and said nothing."""
    spec = SPEC.replace("due: 2026-12-01T23:59:00+00:00\n", "")
    assignment = load_assignment(write(tmp_path / "a.yaml", spec))
    document = {"created_at": stamp(DUE + timedelta(days=2)), "assignment": {"due_date": "soon"}}
    meta = gradescope.read_run_metadata(write(tmp_path / "m.json", json.dumps(document)))
    handin = Handin("1001", name="Jane Doe", submitted_at=meta.created_at)
    data = json.loads(gradescope.finish_run(handin, meta, FULL, assignment))
    assert data["score"] == 100.0 and "due date could not be read" in data["output"]


@settings(max_examples=30, deadline=None)
@given(
    extended=st.lists(st.booleans(), min_size=2, max_size=4),
    handed=st.integers(min_value=1, max_value=5 * 24 * 60),
    lang=st.sampled_from(["en", "zh"]),
)
def test_a_groups_one_grade_is_judged_by_its_least_extended_member(extended, handed, lang):
    """The assignment file's ``extensions`` gave the group's first submitter 3 more days:
    the group's one grade (Gradescope gives every member the same) was judged by that date
    alone, and a member without an extension, late, lost nothing; an extension of another
    member was not looked at. A group is judged by its members' earliest due date, and told."""
    people = [f"{chr(97 + i)}@example.edu" for i in range(len(extended))]
    lines = "".join(
        f"  '{who}': 2026-12-04T23:59:00+00:00\n"
        for who, e in zip(people, extended, strict=True)
        if e
    )
    spec = SPEC + (f"extensions:\n{lines}" if lines else "")
    created = DUE + timedelta(minutes=handed)
    with tempfile.TemporaryDirectory() as tmp:
        assignment = load_assignment(write(Path(tmp) / "week-3.yaml", spec))
    meta = gradescope.RunMetadata(
        created_at=created,
        due_date=DUE,
        users=tuple(gradescope.Submitter(f"P {i}", "", who) for i, who in enumerate(people)),
        user_due_dates=(None,) * len(people),
    )
    handin = Handin(people[0], name="P 0", email=people[0], submitted_at=created)
    data = json.loads(gradescope.finish_run(handin, meta, FULL, assignment, lang=lang))
    own = DUE if not all(extended) else DUE + timedelta(days=3)
    assert data["score"] == expected(created, own)
    told = "different due dates" in data["output"] or "截止日期不同" in data["output"]
    assert told == (len(set(extended)) > 1)
