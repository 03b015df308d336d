"""The assignment file, the roster, the late rule and roster matching."""

from __future__ import annotations

import math
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms.assignment import (
    LatePolicy,
    late_penalty,
    load_assignment,
    match_roster,
    read_roster,
)
from grader.lms.handin import Handin
from tests.lms.builders import write

GOOD = """\
format_version: 1
name: week-3
title: Week 3
exercises: {exercise-01: 1, exercise-05: 2}
roster: roster.csv
due: 2026-12-01T23:59:00+00:00
grace_minutes: 10
late: {per_day_percent: 10, max_days: 3, after_max_days: zero}
missing: blank
canvas: {assignment_id: 48213, points: 20}
moodle: {item: Week 3 grade, points: 10, key: idnumber, feedback: false}
gradescope: {points: 50, hidden_tests: after_published, stdout_visibility: hidden}
"""
ROSTER = "id,name,email,sid,section\n4711,Jane Doe,jane@example.edu,1001,A\n4712,Bob Smith,bob@example.edu,1002,B\n"


def assignment_file(tmp_path: Path, text: str = GOOD, roster: str | None = ROSTER) -> Path:
    if roster is not None:
        write(tmp_path / "roster.csv", roster)
    return write(tmp_path / "week-3.yaml", text)


def test_a_complete_assignment_file(tmp_path):
    a = load_assignment(assignment_file(tmp_path))
    assert a.name == "week-3" and a.title == "Week 3"
    assert a.exercises == (("exercise-01", 1.0), ("exercise-05", 2.0))
    assert a.roster == tmp_path / "roster.csv"
    assert a.due == datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)
    assert a.grace_minutes == 10 and a.missing == "blank"
    assert a.late == LatePolicy(10.0, 3, "zero")
    assert a.canvas_settings().column == "Week 3 (48213)" and a.canvas_settings().points == 20
    assert a.moodle_settings().item == "Week 3 grade" and a.moodle_settings().key == "idnumber"
    assert a.gradescope.hidden_tests == "after_published" and a.gradescope.points == 50


def test_a_minimal_assignment_file_has_documented_defaults(tmp_path):
    a = load_assignment(
        assignment_file(tmp_path, "format_version: 1\nname: w1\nexercises: {exercise-07: 1}\n")
    )
    assert (a.roster, a.due, a.late, a.missing) == (None, None, None, "zero")
    assert a.canvas_settings().column == "w1" and a.moodle_settings().item == "w1"
    assert a.gradescope.tests_visibility == "visible" and a.gradescope.stdout_visibility == "hidden"
    assert a.gradescope.score_at_once


@pytest.mark.parametrize(
    ("change", "field", "problem"),
    [
        (("name: week-3", "nmae: week-3"), "nmae", "did you mean 'name'?"),
        (
            ("grace_minutes: 10", "grace_minutes: ten"),
            "grace_minutes",
            "expected a whole number or a number",
        ),
        (("format_version: 1", "format_version: 2"), "format_version", "unsupported version 2"),
        (("{exercise-01: 1,", "{exercise-1: 1,"), "exercises.exercise-1", "is not an exercise id"),
        (("exercise-05: 2}", "exercise-05: 0}"), "exercises.exercise-05", "above 0"),
        (("roster: roster.csv", "roster: class.csv"), "roster", "does not exist"),
        (("+00:00\n", "\n"), "due", "has no time zone"),
        (("due: 2026-12-01T23:59:00+00:00", "due: 2026-12-01"), "due", "a date without a time"),
        (("due: 2026-12-01T23:59:00+00:00", "due: next friday"), "due", "is not a date and time"),
        (
            ("per_day_percent: 10", "per_day_percent: 150"),
            "late.per_day_percent",
            "between 0 and 100",
        ),
        (
            ("after_max_days: zero", "after_max_days: half"),
            "late.after_max_days",
            "is not a choice",
        ),
        (
            ("per_day_percent: 10,", "per_day: 10,"),
            "late.per_day",
            "did you mean 'per_day_percent'?",
        ),
        (("missing: blank", "missing: skip"), "missing", "is not a choice"),
        (
            ("canvas: {assignment_id: 48213, points: 20}", "canvas: {title: Week (3)}"),
            "canvas.title",
            "reads as an assignment id (3)",  # a Canvas id in parentheses
        ),
        (
            ("hidden_tests: after_published", "hidden_tests: later"),
            "gradescope.hidden_tests",
            "is not a choice",
        ),
        (("key: idnumber", "key: username"), "moodle.key", "is not a choice"),
    ],
)
def test_every_error_names_the_file_and_the_field(tmp_path, change, field, problem):
    old, new = change
    assert old in GOOD
    path = assignment_file(tmp_path, GOOD.replace(old, new))
    with pytest.raises(SpecError) as caught:
        load_assignment(path)
    error = caught.value
    assert error.path == str(path) and error.field == field
    assert problem in error.format()


def test_unknown_exercises_are_caught_against_the_catalog(tmp_path):
    a = load_assignment(assignment_file(tmp_path))
    with pytest.raises(SpecError) as caught:
        a.check_exercises({"exercise-01", "exercise-50"})
    assert caught.value.field == "exercises.exercise-05"
    assert "did you mean 'exercise-50'?" in caught.value.format()


def test_broken_yaml_and_a_missing_file(tmp_path):
    with pytest.raises(SpecError, match="invalid YAML at line"):
        load_assignment(write(tmp_path / "a.yaml", "name: [unclosed\n"))
    with pytest.raises(SpecError, match="file not found"):
        load_assignment(tmp_path / "none.yaml")
    with pytest.raises(SpecError, match="found duplicate key 'name'"):
        load_assignment(write(tmp_path / "b.yaml", "name: a\nname: b\n"))


# -- the late rule ---------------------------------------------------------------------------

DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)


@pytest.mark.parametrize(
    ("after_due", "expected"),
    [
        (timedelta(minutes=-5), (0, 0.0)),
        (timedelta(minutes=10), (0, 0.0)),  # within the grace
        (timedelta(minutes=10, seconds=1), (1, 10.0)),  # one second past: a whole day
        (timedelta(days=1, minutes=10), (1, 10.0)),
        (timedelta(days=1, minutes=11), (2, 20.0)),  # a part of a second day
        (timedelta(days=3, minutes=10), (3, 30.0)),
        (timedelta(days=3, minutes=11), (4, 100.0)),  # past max_days: zero
    ],
)
def test_the_late_rule(tmp_path, after_due, expected):
    a = load_assignment(assignment_file(tmp_path))
    assert late_penalty(DUE + after_due, a) == expected


def test_the_late_rule_with_a_cap_no_limit_and_no_rule(tmp_path):
    a = load_assignment(
        assignment_file(tmp_path, GOOD.replace("after_max_days: zero", "after_max_days: cap"))
    )
    assert late_penalty(DUE + timedelta(days=9), a) == (9, 30.0)
    a = load_assignment(
        assignment_file(tmp_path, GOOD.replace(", max_days: 3, after_max_days: zero", ""))
    )
    assert late_penalty(DUE + timedelta(days=20), a) == (20, 100.0)
    a = load_assignment(
        assignment_file(
            tmp_path,
            GOOD.replace("late: {per_day_percent: 10, max_days: 3, after_max_days: zero}\n", ""),
        )
    )
    assert late_penalty(DUE + timedelta(days=2), a) == (2, 0.0)  # late, but no rule
    assert late_penalty(None, a) == (0, 0.0)
    other_zone = DUE.astimezone(timezone(timedelta(hours=-8))) + timedelta(minutes=11)
    assert late_penalty(other_zone, a)[0] == 1  # time zones compare as instants


# -- the roster ------------------------------------------------------------------------------


def test_a_roster_is_read_with_any_column_order_and_a_bom(tmp_path):
    path = write(
        tmp_path / "r.csv", "\ufeffEmail, Name ,ID,Login\njane@x.edu,Jane Doe,4711,jdoe\n\n"
    )
    (entry,) = read_roster(path)
    assert (entry.id, entry.name, entry.email, entry.login, entry.line) == (
        "4711",
        "Jane Doe",
        "jane@x.edu",
        "jdoe",
        2,
    )


@pytest.mark.parametrize(
    "text",
    [
        "id,name,email,,\n4711,Jane Doe,jane@x.edu,,\n",  # Excel's empty trailing columns
        "id,name,email,,\n4711,Jane Doe,jane@x.edu\n",  # ... left off a line
        "id;name;email\n4711;Jane Doe;jane@x.edu\n",  # a locale whose decimal mark is a comma
        "sep=;\nid;name;email\n4711;Jane Doe;jane@x.edu\n",  # Excel's separator hint
        "sep=,\r\nid,name,email\r\n4711,Jane Doe,jane@x.edu\r\n",
        "id\tname\temail\n4711\tJane Doe\tjane@x.edu\n",
    ],
    ids=[
        "empty columns",
        "empty columns left off",
        "semicolons",
        "sep= hint",
        "sep=, CRLF",
        "tabs",
    ],
)
def test_a_roster_as_spreadsheets_save_it_is_read(tmp_path, text):
    """Each was refused with an 'unknown column' that named no cause ('', 'id;name;email',
    'sep=')."""
    (entry,) = read_roster(write(tmp_path / "r.csv", text))
    assert (entry.id, entry.name, entry.email) == ("4711", "Jane Doe", "jane@x.edu")
    assert entry.line == (3 if text.startswith("sep=") else 2)


@pytest.mark.parametrize(
    ("text", "field", "problem"),
    [
        ("", None, "is empty"),
        ("id,name\n1,a\n", "column 'email'", "missing from the header row"),
        ("id,name,emial\n", "column 'emial'", "did you mean 'email'?"),
        ("id,name,email,id\n", "header", "names a column twice"),
        ("id,name,email\n1,a\n", "line 2", "has 2 fields, the header has 3"),
        ("id,name,email\n,a,a@x\n", "line 2", "has no id"),
        ("id,name,email\n1,a,not-an-address\n", "line 2", "is not an e-mail address"),
        ("id,name,email\n1,a,a@x\n1,b,b@x\n", "line 3", "id '1' is already on line 2"),
        ("id,name,email\n1,a,A@x\n2,b,a@X\n", "line 3", "email 'a@X' is already on line 2"),
        ("id,name,email,participant\n1,a,a@x,p7\n", "line 2", "not a Moodle participant id"),
        ("id,name,email,participant\n1,a,a@x,7\n2,b,b@x,7\n", "line 3", "participant '7' is"),
        ("id,,name,email\n1,x,a,a@x\n", "column 2", "has values but no name"),
        ("id,,name,email\n1,,a\n", "line 2", "has 3 fields, the header has 4"),
        ("sep=;\nid;name;email\n1;a\n", "line 3", "has 2 fields, the header has 3"),
    ],
)
def test_roster_errors_name_the_line(tmp_path, text, field, problem):
    path = write(tmp_path / "r.csv", text)
    with pytest.raises(SpecError) as caught:
        read_roster(path)
    assert caught.value.field == field and problem in caught.value.format()


@settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    breaks=st.lists(st.integers(0, 3), min_size=1, max_size=6),
    newline=st.sampled_from(["\n", "\r\n"]),
    hint=st.booleans(),
    blank=st.booleans(),
)
def test_a_roster_error_names_the_line_of_the_file_not_the_row(
    tmp_path, breaks, newline, hint, blank
):
    """A quoted name may hold line breaks (a spreadsheet cell with two lines): every later
    row was named by its row number, a line or more above where it is. The duplicate id at
    the end is named by the line it starts on, and so is the first row it repeats."""
    sep = ";" if hint else ","
    lines = ([f"sep={sep}"] if hint else []) + [f"id{sep}name{sep}email"]
    starts = []
    for i, count in enumerate(breaks):
        if blank:
            lines.append("")
        starts.append(len(lines) + 1)
        name = newline.join(f"part {k}" for k in range(count + 1))
        lines.append(f'{i + 1}{sep}"{name}"{sep}s{i}@x.edu')
    text = newline.join(lines) + newline
    duplicate = text.count("\n") + 1  # the line the repeated id starts on
    text += f"1{sep}Again{sep}again@x.edu{newline}"
    path = tmp_path / "r.csv"
    path.write_bytes(text.encode())
    with pytest.raises(SpecError) as caught:
        read_roster(path)
    assert caught.value.field == f"line {duplicate}", caught.value.format()
    assert f"is already on line {starts[0]}" in caught.value.format()


def test_roster_matching_by_id_sid_email_then_name(tmp_path):
    roster = read_roster(
        write(
            tmp_path / "r.csv",
            "id,name,email,sid\n4711,Jane Doe,jane@x.edu,1001\n4712,Bob Smith,bob@x.edu,1002\n"
            "4713,Ann Lee,ann@x.edu,1003\n4714,Mary Ann Smith,mary@x.edu,1004\n"
            "4715,Pat Kim,pat@x.edu,1005\n4716,Pat Kim,pat2@x.edu,1006\n4717,Absent Student,no@x.edu,\n",
        )
    )
    handins = [
        Handin("4711", key_kind="lms_id", lms_id="4711", name="doejane"),  # Canvas: by id
        Handin("1002", key_kind="sid", sid="1002", name="Robert Smith"),  # Gradescope: by SID
        Handin("ann", name="Someone", email="ANN@x.edu"),  # by e-mail, case ignored
        Handin("1234567", key_kind="participant", name="Smith, Mary Ann"),  # Moodle: by name
        Handin("1234568", key_kind="participant", name="Pat Kim"),  # two Pat Kims: no match
        Handin("stranger", name="Not Enrolled"),
    ]
    matched = match_roster(handins, roster)
    assert [(h.key, e.id, how) for h, e, how in matched.pairs] == [
        ("4711", "4711", "id"),
        ("1002", "4712", "sid"),
        ("ann", "4713", "email"),
        ("1234567", "4714", "name"),
    ]
    assert [h.key for h in matched.unmatched] == ["1234568", "stranger"]
    assert [e.id for e in matched.absent] == ["4715", "4716", "4717"]


def test_folders_named_by_student_id_match_the_roster_id(tmp_path):
    roster = read_roster(write(tmp_path / "r.csv", "id,name,email\nS1234567,Jane Doe,j@x\n"))
    matched = match_roster([Handin("s1234567", name="s1234567")], roster)
    assert [how for _, _, how in matched.pairs] == ["id"]
    participant = Handin("S1234567", key_kind="participant", name="x")
    assert match_roster([participant], roster).pairs == []  # Moodle's ids are the download's own


@pytest.mark.parametrize("due", ["2026-02-30T23:59:00+00:00", "2026-13-01T00:00:00Z"])
def test_a_due_date_the_calendar_does_not_have_is_a_spec_error(tmp_path, due):
    """YAML reads these as timestamps, and its constructor failed on them: the batch crashed
    (exit 3) where `due: next friday` got a clear error."""
    path = assignment_file(tmp_path, GOOD.replace("2026-12-01T23:59:00+00:00", due))
    with pytest.raises(SpecError) as caught:
        load_assignment(path)
    said = caught.value.format()
    assert f"'{due}' is not a valid value" in said and "at line" in said


_ANY_NUMBER = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-(10**30), 10**30),
    st.sampled_from([".nan", ".inf", "-.inf", "1.0e+308", "1.0e+12", "0", "10"]),
)
_FIELDS = {
    "grace_minutes": ("grace_minutes: 10", "grace_minutes: {}"),
    "canvas.points": ("points: 20}", "points: {}}}"),
    "moodle.points": ("points: 10,", "points: {},"),
    "gradescope.points": ("points: 50,", "points: {},"),
    "exercises.exercise-05": ("exercise-05: 2}", "exercise-05: {}}}"),
    "late.per_day_percent": ("per_day_percent: 10", "per_day_percent: {}"),
    "late.max_days": ("max_days: 3", "max_days: {}"),
}


@given(
    field=st.sampled_from(sorted(_FIELDS)),
    value=_ANY_NUMBER,
    due=st.sampled_from(["2026-12-01T23:59:00+00:00", "9999-12-31T23:59:00+00:00"]),
    late_by=st.integers(-(10**6), 10**9),
)
def test_every_number_of_the_assignment_is_finite_and_in_range_or_refused(
    tmp_path_factory, field, value, due, late_by
):
    """`grace_minutes: .nan` crashed the batch (exit 3), `canvas.points: .nan` wrote "nan"
    into canvas.csv, weights of 1e308 graded everyone 0. Each number is read or refused naming
    its field; every one read gives a late penalty of 0-100 points for any submission time."""
    old, new = _FIELDS[field]
    text = new.format(value if isinstance(value, str) else repr(value).replace("inf", ".inf"))
    source = GOOD.replace(old, text, 1).replace("2026-12-01T23:59:00+00:00", due)
    path = assignment_file(tmp_path_factory.mktemp("a"), source)
    try:
        a = load_assignment(path)
    except SpecError as exc:
        assert exc.field == field, (exc.field, exc.format())
        return
    numbers = [a.grace_minutes, a.canvas_settings().points, a.moodle_settings().points]
    numbers += [a.gradescope.points, *a.weights.values(), a.late.per_day_percent]
    assert all(math.isfinite(n) and 0 <= n <= 1e6 for n in numbers)
    assert 0 < sum(a.weights.values()) < math.inf
    when = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc) + timedelta(seconds=late_by)
    days, lost = late_penalty(when, a)
    assert days >= 0 and 0 <= lost <= 100


@pytest.mark.parametrize(
    ("canvas", "column"),
    [
        ("{title: Week 3 (tensors)}", "Week 3 (tensors)"),
        ("{title: Lab (3), assignment_id: 48213}", "Lab (3) (48213)"),
        ("{title: (2) Views}", "(2) Views"),
    ],
)
def test_a_canvas_title_with_parentheses_is_fine_where_canvas_reads_it_whole(
    tmp_path, canvas, column
):
    """Canvas's import reads only a trailing " (digits)" as the id: other parentheses, or any
    title with its id given, are read as written (a title with parentheses refused the batch,
    even with the id given)."""
    path = assignment_file(
        tmp_path, GOOD.replace("canvas: {assignment_id: 48213, points: 20}", f"canvas: {canvas}")
    )
    assert load_assignment(path).canvas.column == column


def test_a_title_canvas_would_misread_names_the_field_it_came_from(tmp_path):
    """Without canvas.title the Canvas column is the assignment's title: the error names
    `title`, the field the instructor wrote."""
    text = GOOD.replace("title: Week 3\n", "title: Lab (3)\n").replace(
        "canvas: {assignment_id: 48213, points: 20}", "canvas: {points: 20}"
    )
    with pytest.raises(SpecError) as caught:
        load_assignment(assignment_file(tmp_path, text))
    assert caught.value.field == "title"
    assert "canvas.assignment_id" in caught.value.format()


@pytest.mark.parametrize(
    ("roster", "column"),
    [
        ("id,name,email,sid\n4711,Jane Doe,jane@example.edu,2.02312E+11\n", "sid"),
        ("id;name;email\n2,02312E+11;Jane Doe;jane@example.edu\n", "id"),
        ("id,name,email,participant\n4711,Jane Doe,jane@example.edu,1.23457e+15\n", "participant"),
    ],
)
def test_an_id_excel_wrote_in_scientific_notation_is_an_error(tmp_path, roster, column):
    """A roster opened in Excel and saved again holds 202312345678 as "2.02312E+11": the id
    matched no one (the student's Gradescope SID contradicted it: no grade, "ambiguous";
    moodle.csv keyed by ID number named no Moodle user), and nothing said why."""
    with pytest.raises(SpecError, match=f"{column} '.*' is a number as Excel shows a long one"):
        read_roster(write(tmp_path / "roster.csv", roster))


def test_an_id_with_letters_and_digits_is_not_taken_for_excels_notation(tmp_path):
    roster = "id,name,email,sid\n4711,Jane Doe,jane@example.edu,E12345\n"
    (entry,) = read_roster(write(tmp_path / "roster.csv", roster))
    assert entry.sid == "E12345"


# Faults of the assignment file, each in a field of its own: (the line that replaces the good
# one, or a new line; the field its error names)
FAULTS = {
    "name": ("name: week 3!", "name"),
    "exercises": ("exercises: {exercise-01: 0}", "exercises.exercise-01"),
    "roster": ("roster: nowhere.csv", "roster"),
    "due": ("due: tomorrow", "due"),
    "grace_minutes": ("grace_minutes: -5", "grace_minutes"),
    "late": ("late: {per_day_percent: 200}", "late.per_day_percent"),
    "missing": ("missing: never", "missing"),
    "canvas": ("canvas: {points: -1}", "canvas.points"),
    "moodle": ("moodle: {key: phone}", "moodle.key"),
    "gradescope": ("gradescope: {points: x}", "gradescope.points"),
    "typo": ("dew: 2026-12-01T23:59:00+00:00", "dew"),
    "format_version": ("", "format_version"),
}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(faults=st.sets(st.sampled_from(sorted(FAULTS)), min_size=2, max_size=len(FAULTS)))
def test_every_fault_of_the_assignment_file_is_reported_at_once(tmp_path, faults):
    """Several missing or invalid fields: one error naming each, not one per run."""
    write(tmp_path / "roster.csv", ROSTER)
    lines = GOOD.splitlines()
    for fault in faults:
        line, _ = FAULTS[fault]
        key = "format_version" if fault == "format_version" else fault
        kept = [i for i, old in enumerate(lines) if old.startswith(f"{key}:")]
        if kept:
            lines[kept[0]] = line
        else:
            lines.append(line)
    with pytest.raises(SpecError) as caught:
        load_assignment(write(tmp_path / "week.yaml", "\n".join(lines) + "\n"))
    text = caught.value.message
    assert text.startswith(f"{tmp_path / 'week.yaml'}: {len(faults)} problems:"), text
    for fault in faults:
        assert f"field '{FAULTS[fault][1]}'" in text, (fault, text)
    assert len(text.splitlines()) == len(faults) + 1  # a line each
