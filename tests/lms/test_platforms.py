"""One class, three platforms, the same grades: the declared platform interface, Moodle's blind
marking and its grading worksheet, namesakes on the roster, and lateness as each platform's
download does (or does not) carry it.

Grading here is by content (a staged file that says "wrong" scores 0, any other full marks), so
that intake, roster matching, the late rule and the exports are checked without the engine.
"""

from __future__ import annotations

import csv
import io
import json
import re
import string
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from grader.i18n import REPORT, number
from grader.lms import canvas, gradescope, moodle
from grader.lms.assignment import (
    Assignment,
    LatePolicy,
    late_penalty,
    load_assignment,
    read_roster,
)
from grader.lms.batch import advice
from grader.lms.collect import SKIP_DIRS
from grader.lms.feedback import feedback_html
from grader.lms.grades import (
    ExerciseScore,
    GradeRow,
    Student,
    TestScore,
    build_row,
    build_rows,
)
from grader.lms.handin import Handin, Submitted
from grader.lms.intake import read_submissions
from grader.lms.platform import NO_TIMES, dated_files
from grader.lms.platforms import by_name, names, platforms
from tests.conftest import FIXTURES, run_cli
from tests.lms.builders import code, exercises, write, zip_bytes
from tests.lms.classes import CLASS, PARTICIPANT, roster_text, same_class

ASSIGNMENT = """\
format_version: 1
name: week-3
title: Week 3
exercises: {exercise-01: 1, exercise-05: 1}
roster: roster.csv
due: 2026-12-01T20:00:00+00:00
late: {per_day_percent: 10, max_days: 3}
canvas: {assignment_id: 48213, points: 100}
moodle: {item: Week 3, points: 100, key: email}
"""


def grade(handins: list[Handin]) -> dict[str, dict[str, ExerciseScore]]:
    """Full marks for a staged file unless it says "wrong"."""
    found: dict[str, dict[str, ExerciseScore]] = {}
    for handin in handins:
        for exercise, submitted in handin.files.items():
            right = "wrong" not in submitted.path.read_text()
            test = TestScore("test_a[cpu]", 4.0 if right else 0.0, 4.0, right)
            found.setdefault(handin.key, {})[exercise] = ExerciseScore(
                exercise, "passed" if right else "failed", test.score, 4.0, (test,)
            )
    return found


def rows_of(
    layout: str,
    tmp_path: Path,
    *,
    blind: bool = False,
    roster: str = "",
    spec: str = ASSIGNMENT,
    teams: dict[str, str] | None = None,
    inside: str = "",
) -> tuple:
    """The class's grades from ``layout``'s download; ``inside``: the download unzipped into
    a folder of that name, which is what is passed."""
    write(tmp_path / "roster.csv", roster or roster_text())
    assignment = load_assignment(write(tmp_path / "week-3.yaml", spec))
    passed = tmp_path / layout
    download = same_class(layout, passed / inside if inside else passed, blind=blind, teams=teams)
    intake = read_submissions(
        passed if inside else download, staging=tmp_path / "staging", exercises=exercises()
    )
    assert intake.layout == layout
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(tmp_path / "roster.csv"),
        lateness=by_name(layout).lateness,
    )
    return rows, assignment


COURSE = FIXTURES / "lms-course"


def by_email(rows: list[GradeRow]) -> dict[str, GradeRow]:
    return {r.student.email: r for r in rows}


def table(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


# ---------------------------------------------------------------------------------------------
# The interface


def test_every_platform_declares_detect_read_and_its_times():
    assert names() == ("gradescope", "moodle", "canvas", "folders")
    for platform in platforms():
        assert callable(platform.detect) and callable(platform.read) and platform.times
    assert {n for p in platforms() for n in p.upload_names} == {
        "canvas.csv",
        "moodle.csv",
        moodle.WORKSHEET,
    }


# ---------------------------------------------------------------------------------------------
# One class, three platforms


def test_one_class_gets_the_same_grade_on_every_platform_or_is_told_why(tmp_path):
    got = {
        layout: by_email(rows_of(layout, tmp_path / layout)[0])
        for layout in ("gradescope", "canvas", "moodle")
    }
    expected = {  # Gradescope's export carries submission times: the rule applies there
        "jane@example.edu": 100.0,
        "bob@example.edu": 0.0,
        "ann@example.edu": 80.0,
        "kim@example.edu": 0.0,
    }
    assert {e: r.final_percent for e, r in got["gradescope"].items()} == expected
    for layout in ("canvas", "moodle"):
        rows = got[layout]
        for email, row in rows.items():
            assert row.roster == "matched", (layout, email)
            assert row.weighted_percent == got["gradescope"][email].weighted_percent
            if email in ("jane@example.edu", "bob@example.edu"):  # on time: the same grade
                assert row.final_percent == expected[email], (layout, email)
                assert not row.lateness and not any("late" in p for p in row.problems)
    # late work where the download has no times: the grade says exactly why it differs
    for email in ("ann@example.edu", "kim@example.edu"):
        late = got["canvas"][email]
        # 10% a day, no credit after 3 days: Canvas deducts, the limit is said
        said = REPORT["en"]["late_canvas_then_zero"].format(per_day="10", max="3")
        assert late.final_percent == 100.0 and late.lateness == said
        assert canvas.LATE_INSTRUCTOR in late.problems
        dated = got["moodle"][email]
        assert dated.final_percent == 100.0
        days = 2 if email.startswith("ann") else 4
        assert any(
            f"{days} day(s) after the due date (a file date, not a submission time" in p
            for p in dated.problems
        ), dated.problems


@pytest.mark.parametrize("layout", ["gradescope", "canvas", "moodle"])
@pytest.mark.parametrize("inside", ["Week 3-98765", "submissions"])
def test_a_download_unzipped_into_a_folder_of_its_own_is_found_inside_it(tmp_path, layout, inside):
    """Windows' "Extract All" and macOS' Archive Utility unzip into a folder named after the
    zip: passed the folder around it, the download was read as plain folders, the whole class
    one student, and everyone else got 0."""
    plain = by_email(rows_of(layout, tmp_path / "plain")[0])
    write(tmp_path / "nested" / layout / "__MACOSX" / "._x", "tool folder")
    nested = by_email(rows_of(layout, tmp_path / "nested", inside=inside)[0])
    assert {e: r.final_percent for e, r in nested.items()} == {
        e: r.final_percent for e, r in plain.items()
    }
    assert all(r.roster == "matched" for r in nested.values())


@pytest.mark.parametrize("layout", ["gradescope", "canvas", "moodle"])
@pytest.mark.parametrize("archive", [".zip", ".tar.gz"])
def test_the_archive_extract_all_leaves_beside_the_folder_is_not_a_second_student(
    tmp_path, layout, archive
):
    """ "Extract All" keeps ``Week 3-98765.zip`` beside the ``Week 3-98765/`` it made: read as
    plain folders, the download and its archive were the class's only two students."""
    plain = by_email(rows_of(layout, tmp_path / "plain")[0])
    inside = "Week 3-98765"
    write(tmp_path / "nested" / layout / f"{inside}{archive}", zip_bytes({"x.txt": "x"}))
    nested = by_email(rows_of(layout, tmp_path / "nested", inside=inside)[0])
    assert {e: r.final_percent for e, r in nested.items()} == {
        e: r.final_percent for e, r in plain.items()
    }
    assert all(r.roster == "matched" for r in nested.values())


EXPECTED_KEYS = {
    "bob.zip": ["alice", "bob"],
    "alice.txt": ["alice"],
    "alice.zip/": ["alice", "alice.zip"],
}


@pytest.mark.parametrize("beside", ["bob.zip", "alice.txt", "alice.zip/"])
def test_only_the_folders_own_archive_beside_it_is_passed_over(tmp_path, beside):
    """Another student's archive, a file of the folder's name that is no archive, or a
    folder named like the archive: the class stays plain folders, each hand-in its own."""
    root = tmp_path / "class"
    same_class("moodle", root / "alice")
    if beside.endswith("/"):
        write(root / beside / "exercise-01.py", code("bob"))
    else:
        write(root / beside, zip_bytes({"exercise-01.py": code("bob")}))
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    assert intake.layout == "folders"
    assert sorted(h.key for h in intake.handins) == EXPECTED_KEYS[beside]


def test_a_folder_beside_the_download_keeps_the_class_as_plain_folders(tmp_path):
    """Only a folder that is all the passed folder holds is looked into: a class of plain
    folders is never read as the one of its students whose files look like a download."""
    root = tmp_path / "class"
    same_class("moodle", root / "alice")
    write(root / "bob" / "exercise-01.py", code("bob"))
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    assert intake.layout == "folders"
    assert sorted(h.key for h in intake.handins) == ["alice", "bob"]


TEAMS = {"4711": "Team Red", "4712": "Team Red", "4713": "A-2"}  # Kim: in no group


def test_a_moodle_team_download_matches_every_student_by_the_name_after_the_team(tmp_path):
    """Moodle writes "{team}-{full name}" for each student of a team assignment ("Default
    group-" for one in no group): every student was "not on the roster" and got 0."""
    plain = by_email(rows_of("moodle", tmp_path / "plain")[0])
    teams = by_email(rows_of("moodle", tmp_path / "teams", teams=TEAMS)[0])
    for email, row in teams.items():
        assert row.roster == "matched", (email, row.problems)
        assert row.final_percent == plain[email].final_percent


def test_a_hyphenated_name_in_a_moodle_team_download_is_matched_whole_first(tmp_path):
    """Team names and full names may both hold "-" ("A-2-Ann-Marie Lee"): the full name is
    tried first, then the name after each "-" from the left, so Ann-Marie is not taken for
    Marie Lee, who is on the roster too; a name that fits no one stays unmatched."""
    roster = write(
        tmp_path / "roster.csv",
        "id,name,email\n1,Ann-Marie Lee,ann@x.edu\n2,Marie Lee,marie@x.edu\n3,Bob Roy,bob@x.edu\n",
    )
    download = tmp_path / "moodle"
    for team, name, participant in [
        ("A-2", "Ann-Marie Lee", "901"),
        ("Team Red", "Bob Roy", "902"),
        ("Team Red", "Nobody Known", "903"),
    ]:
        folder = download / f"{team}-{name}_{participant}_assignsubmission_file_"
        write(folder / "exercise-01.py", code(name))
    intake = read_submissions(download, staging=tmp_path / "staging", exercises=exercises())
    assignment = load_assignment(write(tmp_path / "week-3.yaml", ASSIGNMENT))
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(roster),
        lateness=by_name("moodle").lateness,
    )
    found = {r.student.email or r.student.name: r.roster for r in rows}
    assert found["ann@x.edu"] == "matched" and found["bob@x.edu"] == "matched"
    assert found["marie@x.edu"] == "absent"
    assert "unmatched" in found.values()  # Nobody Known


words = st.text(string.ascii_letters + string.digits + " -'", min_size=1, max_size=12).filter(
    lambda w: w.strip(" -")
)


@settings(max_examples=100, deadline=None)
@given(team=words, name=words)
def test_every_team_and_name_moodle_can_write_yields_the_name(team, name):
    """Whatever "-" the team and the name hold, "{team}-{name}" offers the name."""
    name = name.strip(" -")
    assert name in moodle._after_team(f"{team}-{name}")


def test_a_late_dated_archive_member_is_said_to_carry_the_archives_date(tmp_path):
    """A member of a zip carries the zip file's date (its own is the student's clock): the
    line names the archive as the dated file, not the member."""
    from datetime import timedelta

    from grader.lms.handin import Submitted
    from grader.lms.platform import dated_files

    write(tmp_path / "roster.csv", roster_text())
    assignment = load_assignment(write(tmp_path / "week-3.yaml", ASSIGNMENT))
    late = assignment.due + timedelta(days=2)
    handin = Handin("jane")
    for exercise, shown in (("exercise-01", "work.zip:hw/ex1.py"), ("exercise-05", "ex5.py")):
        handin.files[exercise] = Submitted(exercise, tmp_path, shown, submitted_at=late)
    lines = dated_files(handin, assignment).instructor
    assert lines[0].startswith("exercise-01: work.zip (the archive hw/ex1.py came in) is dated ")
    assert lines[1].startswith("exercise-05: ex5.py is dated ")


def test_the_runs_summary_ends_with_what_to_do_on_each_platform(tmp_path):
    rows, assignment = rows_of("canvas", tmp_path / "c")
    todo = advice(rows, assignment, "canvas")
    assert todo == [
        'Canvas: turn on Canvas\'s Late Policy (Gradebook, Settings, "Late Policies", '
        '"Automatically apply deduction to late submissions"; it applies to the whole course) '
        'with this assignment\'s rule, 10% per day: "Late submission deduction" 10%, '
        '"Deduction interval" Day. Canvas has no day limit: give 0 by hand to a submission '
        "more than 3 days late, handed in after 2026-12-04 20:00+00:00 (the due date, 3 days "
        "later) (this rule gives no credit then): 2 submission(s) Canvas marks "
        "late got no late penalty here (canvas.csv holds their grade before lateness)"
    ]
    rows, assignment = rows_of("moodle", tmp_path / "m")
    todo = advice(rows, assignment, "moodle")
    assert todo[0].startswith(f"Moodle: upload {moodle.WORKSHEET}")
    assert todo[1] == (
        "Moodle: the late rule was not applied: this download has no submission times; 2 "
        "student(s) have files dated after the due date (listed above): apply the late rule by "
        "hand in Moodle where it is due; moodle.timezone (the Moodle time zone of whoever "
        "downloads the grading worksheet, given as the roster) lets the grader apply it from "
        'the worksheet\'s "Last modified (submission)" times'
    )
    rows, assignment = rows_of("gradescope", tmp_path / "g")
    assert advice(rows, assignment, "gradescope") == [
        "Canvas: canvas.csv already holds the late penalty of 2 student(s): if this Canvas "
        "assignment takes submissions, keep Canvas's Late Policy off for it, or lateness counts "
        "twice"
    ]


def test_canvas_advice_says_where_canvas_cannot_follow_the_rule(tmp_path):
    """Canvas's Late Policy has no grace period and no day limit, and its lowest grade is a
    floor on the grade: the advice says how to set it and what is left to do by hand."""
    spec = ASSIGNMENT.replace(
        "late: {per_day_percent: 10, max_days: 3}",
        "grace_minutes: 15\nlate: {per_day_percent: 10, max_days: 3, after_max_days: cap}",
    )
    rows, assignment = rows_of("canvas", tmp_path, spec=spec)
    (line,) = advice(rows, assignment, "canvas")
    assert '"Late submission deduction" 10%, "Deduction interval" Day' in line
    assert '"Lowest possible grade" (70%) is a floor on the grade, not on the loss' in line
    assert (
        "check submissions more than 3 days late, handed in after 2026-12-04 20:15+00:00 (the "
        "due date, 3 days and the 15-minute grace later), by hand" in line
    )
    assert "Canvas has no grace period: set the Canvas due date 15 minutes later" in line


@pytest.mark.parametrize(
    "late", ["", "late: {per_day_percent: 0}\n"], ids=["no late rule", "a rule that costs nothing"]
)
def test_canvas_late_work_under_no_late_rule_costs_nothing_and_says_so(tmp_path, late):
    """Marked late by Canvas, under an assignment whose rule takes nothing: the student is not
    told that Canvas will deduct, and the instructor is not told to turn the policy on."""
    spec = ASSIGNMENT.replace("late: {per_day_percent: 10, max_days: 3}\n", late)
    rows, assignment = rows_of("canvas", tmp_path, spec=spec)
    ann = by_email(rows)["ann@example.edu"]
    assert ann.final_percent == 100.0 and ann.lateness == canvas.LATE_FREE_LEARNER
    assert canvas.LATE_FREE_INSTRUCTOR in ann.problems
    assert canvas.LATE_INSTRUCTOR not in ann.problems
    assert "Canvas 将这次提交标为迟交；不扣分" in feedback_html(ann, {}, assignment, "zh")
    assert "Late Policy" not in feedback_html(ann, {}, assignment, "en")
    assert advice(rows, assignment, "canvas") == []


def test_canvas_late_work_free_for_some_days_then_zero_is_not_said_to_cost_nothing(tmp_path):
    """``per_day_percent: 0, max_days: 3`` ("late work is free for three days, then no
    credit") takes everything from work more than three days late. Canvas marks Ann late
    and gives no time: she was told "no late penalty applies", canvas.csv held her full
    grade and the run said nothing, though she may be four days late."""
    spec = ASSIGNMENT.replace(
        "late: {per_day_percent: 10, max_days: 3}", "late: {per_day_percent: 0, max_days: 3}"
    )
    rows, assignment = rows_of("canvas", tmp_path, spec=spec)
    ann = by_email(rows)["ann@example.edu"]
    # nothing to deduct in Canvas: she is told the free days and the no credit after them
    assert ann.lateness == REPORT["en"]["late_canvas_zero_after"].format(max="3")
    assert canvas.LATE_ZERO_AFTER_INSTRUCTOR in ann.problems
    assert canvas.LATE_FREE_INSTRUCTOR not in ann.problems
    (line,) = advice(rows, assignment, "canvas")
    assert "give 0 by hand to a submission more than 3 days late" in line
    assert "2 submission(s) Canvas marks late" in line


def test_canvas_advice_for_free_late_days_then_zero_counts_the_grace(tmp_path):
    """``per_day_percent: 0, max_days: 3`` with ``grace_minutes: 15``: the rule gives full
    credit until 3 days and 15 minutes after the due date; the advice said "give 0 by hand to
    a submission more than 3 days late", which Canvas counts from its own due date: work 3
    days and 10 minutes after it, full marks here, got 0 by hand."""
    spec = ASSIGNMENT.replace(
        "late: {per_day_percent: 10, max_days: 3}",
        "grace_minutes: 15\nlate: {per_day_percent: 0, max_days: 3}",
    )
    rows, assignment = rows_of("canvas", tmp_path, spec=spec)
    (line,) = advice(rows, assignment, "canvas")
    assert (
        "takes nothing until 2026-12-04 20:15+00:00 (the due date, 3 days and the 15-minute "
        "grace later) and gives no credit after" in line
    )
    assert "more than 3 days late, handed in after then" in line


@settings(max_examples=200, deadline=None)
@given(
    per_day=st.sampled_from([0.0, 10.0]),
    max_days=st.integers(0, 5),
    after=st.sampled_from(["zero", "cap"]),
    grace=st.sampled_from([0.0, 1.0, 15.0, 90.0, 1440.0]),
    due=st.datetimes(
        datetime(2026, 1, 1),
        datetime(2027, 1, 1),
        timezones=st.sampled_from(
            [timezone.utc, timezone(timedelta(hours=-5)), timezone(timedelta(hours=5, minutes=30))]
        ),
    ),
)
def test_every_canvas_advice_states_the_moment_the_rule_applies(
    per_day, max_days, after, grace, due
):
    """Whatever the rule and grace, each moment the Canvas advice names ("until", "after")
    is the one where ``late_penalty`` goes past ``max_days`` days: a minute before it the
    rule is within its days, a minute after it is past them (the grace counted once)."""
    assume(not LatePolicy(per_day, max_days, after).costs_nothing)
    due = due.replace(second=0, microsecond=0)
    assignment = Assignment(
        "w", (("exercise-01", 1.0),), Path("w.yaml"), due=due, grace_minutes=grace,
        late=LatePolicy(per_day, max_days, after),
    )  # fmt: skip
    ann = build_row(
        Student("4713", "Ann Lee", "ann@example.edu"),
        {"exercise-01": ExerciseScore("exercise-01", "passed", 4.0, 4.0)},
        assignment,
        late_flag=True,
        lateness=canvas.lateness(Handin("4713", late=True), assignment),
    )
    lines = advice([ann], assignment, "canvas")
    said = [
        datetime.fromisoformat(m.replace(" ", "T"))
        for line in lines
        for m in re.findall(r"(?:after|until) (\d{4}-\d\d-\d\d \d\d:\d\d[+-]\d\d:\d\d)", line)
    ]
    assert said
    for moment in said:
        assert late_penalty(moment - timedelta(minutes=1), assignment)[0] <= max_days
        assert late_penalty(moment + timedelta(minutes=1), assignment)[0] > max_days


LATE_CANVAS_LABELS = (  # Canvas marks the work late and the rule may cost something
    "late_canvas",
    "late_canvas_zero_after",
    "late_canvas_then_zero",
    "late_canvas_capped",
)


@settings(max_examples=200, deadline=None)
@given(
    per_day=st.sampled_from([0.0, 0.5, 10.0, 100.0]),
    max_days=st.one_of(st.none(), st.integers(0, 5)),
    after=st.sampled_from(["zero", "cap"]),
)
def test_canvas_says_late_work_is_free_only_where_the_rule_never_costs_anything(
    per_day, max_days, after
):
    """Canvas gives no time, so "no late penalty applies" is true only where no lateness
    at all loses a point under the rule (``late_penalty`` for every number of days)."""
    due = datetime(2026, 12, 1, 20, 0, tzinfo=timezone.utc)
    assignment = Assignment(
        "w",
        (("exercise-01", 1.0),),
        Path("w.yaml"),
        due=due,
        late=LatePolicy(per_day, max_days, after),
    )
    free = all(
        late_penalty(due + timedelta(days=days, seconds=-1), assignment)[1] == 0
        for days in range(1, 10)
    )
    said = canvas.lateness(Handin("4711", late=True), assignment)
    assert (said.learner == canvas.LATE_FREE_LEARNER) == free
    assert (said.label in LATE_CANVAS_LABELS) == (not free)


def test_a_canvas_late_submission_says_so_on_its_page_and_in_its_results(tmp_path):
    rows, assignment = rows_of("canvas", tmp_path)
    ann = by_email(rows)["ann@example.edu"]
    page = feedback_html(ann, {}, assignment, "en")
    assert "Canvas marks this submission late" in page and "Late Policy" in page
    assert "Canvas 将这次提交标为迟交" in feedback_html(ann, {}, assignment, "zh")
    results = json.loads(gradescope.results_json(ann, assignment))
    assert ann.lateness.startswith("Canvas marks this submission late")
    assert ann.lateness in results["output"]


# ---------------------------------------------------------------------------------------------
# Moodle: blind marking


def test_a_withheld_worksheet_row_has_no_feedback_either(tmp_path):
    """Moodle's worksheet importer skips an empty grade and imports the feedback anyway:
    Jane's online text held her exercise-05, her grade was withheld, and the worksheet still
    gave her "exercise-01: 1/1; exercise-05: unreadable; total 50%", as if graded."""
    jane, assignment = text_rows("moodle", tmp_path, frozenset({"exercise-01"}), True)
    assert jane.withheld
    (line,) = table(moodle.worksheet_csv([jane], assignment))[1:]
    assert line[0] == "Participant 901" and line[3] == "" and line[6] == ""


@settings(max_examples=200, deadline=None)
@given(
    statuses=st.lists(st.sampled_from(["passed", "failed", "missing", "unreadable"]), min_size=2,
                      max_size=2),
    withheld=st.sampled_from(["", "exercise-05: no grade written until you look"]),
    missing=st.sampled_from(["zero", "blank"]),
)  # fmt: skip
def test_the_worksheet_writes_feedback_exactly_where_it_writes_a_grade(statuses, withheld, missing):
    """Every worksheet row has feedback if and only if it has a grade: feedback without its
    grade reaches the student as if it were one."""
    assignment = Assignment(
        "w", (("exercise-01", 1.0), ("exercise-05", 1.0)), Path("w.yaml"), missing=missing
    )
    scores = {}
    for exercise, status in zip(("exercise-01", "exercise-05"), statuses, strict=True):
        if status == "unreadable":
            scores[exercise] = ExerciseScore.unreadable(exercise, "damaged")
        elif status != "missing":
            scores[exercise] = ExerciseScore(exercise, status, float(status == "passed"), 1.0)
    row = build_row(Student("901", participant="901"), scores, assignment, withheld=withheld)
    (line,) = table(moodle.worksheet_csv([row], assignment))[1:]
    assert bool(line[3]) == bool(line[6]), line


def test_blind_marking_is_graded_by_participant_and_never_uploads_a_zero(tmp_path):
    rows, assignment = rows_of("moodle", tmp_path, blind=True)
    handed_in = [r for r in rows if r.student.participant]
    assert sorted(r.student.participant for r in handed_in) == ["901", "902", "903", "904"]
    sheet = next(u for u in moodle.uploads(rows, assignment) if u.name == moodle.WORKSHEET)
    lines = table(sheet.text)
    assert lines[0][:5] == ["Identifier", "Full name", "Email address", "Grade", "Maximum Grade"]
    assert "Last modified (grade)" in lines[0] and "Feedback comments" in lines[0]
    grades = {line[0]: line[3] for line in lines[1:]}
    assert grades == {
        "Participant 901": "100",
        "Participant 902": "0",
        "Participant 903": "100",
        "Participant 904": "100",
    }
    # the roster's students cannot be told from the download: no 0 for them anywhere. Canvas
    # leaves a grade alone for an empty cell; Moodle's import erases it, so moodle.csv has no
    # row for them at all (and says so)
    body = table(next(u for u in canvas.uploads(rows, assignment)).text)
    cells = [line[5] for line in body[2:]]
    assert cells and all(cell == "" for cell in cells), body
    keyed = next(u for u in moodle.uploads(rows, assignment) if u.name == "moodle.csv")
    assert len(table(keyed.text)) == 1, keyed.text  # the header alone
    assert any("have no row, so Moodle keeps what it has" in w for w in keyed.warnings)


@pytest.mark.parametrize(("missing", "cell"), [("zero", "0"), ("blank", "")])
def test_the_worksheet_and_moodle_csv_give_a_student_without_work_the_same_cell(
    tmp_path, missing, cell
):
    """A roster student with a participant id and no work: the two Moodle uploads agreed only
    under missing: blank (the worksheet always wrote an empty cell)."""
    text = "id,name,email,sid,participant\n" + "".join(
        f"{i},{n},{e},{s},{PARTICIPANT[i]}\n" for i, n, e, s, *_ in CLASS
    )
    text += "4720,Lee Absent,absent@example.edu,1020,920\n"
    spec = ASSIGNMENT + f"missing: {missing}\n"
    rows, assignment = rows_of("moodle", tmp_path, roster=text, spec=spec)
    uploads = {u.name: table(u.text) for u in moodle.uploads(rows, assignment)}
    sheet = {line[0]: line[3] for line in uploads[moodle.WORKSHEET][1:]}
    assert sheet["Participant 920"] == cell
    grades = {line[0]: line[3] for line in uploads["moodle.csv"][1:]}
    # an empty cell erases Moodle's grade: under blank, moodle.csv has no row for them
    assert grades.get("absent@example.edu") == (cell or None)


@pytest.mark.parametrize("key", ["idnumber", "email"])
@pytest.mark.parametrize("missing", ["zero", "blank"])
def test_every_moodle_csv_row_has_its_key_and_its_grade(tmp_path, key, missing):
    """Moodle's import keeps the student of the row above when a row's key cell is empty (Bob's
    0 went onto Jane's 100), and reads an empty grade as "no grade" (it erased it). No row of
    moodle.csv lacks either; those students are counted in its warnings."""
    roster = roster_text().replace(
        "bob@example.edu,1002", "," if key == "email" else "bob@example.edu,"
    )
    spec = ASSIGNMENT.replace("key: email", f"key: {key}") + f"missing: {missing}\n"
    rows, assignment = rows_of("moodle", tmp_path, roster=roster, spec=spec)
    upload = next(u for u in moodle.uploads(rows, assignment) if u.name == "moodle.csv")
    body = table(upload.text)
    assert body[1:] and all(line[0].strip() and line[3].strip() for line in body[1:]), body
    assert "Bob Smith" not in {line[2] for line in body}
    assert any("no row (Moodle's import would give such a row to the student above" in w
               for w in upload.warnings)  # fmt: skip


@pytest.mark.parametrize("how", ["over the entries cap", "damaged"])
def test_work_intake_could_not_read_gets_no_grade_until_someone_looks(tmp_path, monkeypatch, how):
    """A correct exercise-01 zipped with a .venv of thousands of files (over intake's cap), or
    in a damaged zip, was uploaded as 0: the grader's limit, not the work. No grade is written
    for that student (an empty cell, no moodle.csv row) and the row says why."""
    from grader.lms import collect

    monkeypatch.setattr(collect, "MAX_ARCHIVE_MEMBERS", 20)
    root = tmp_path / "class"
    members = {"alice/exercise-01.py": code("alice")}
    if how == "over the entries cap":
        members |= {f"alice/.venv/f{i}.txt": "x" for i in range(40)}
        write(root / "Jane Doe.zip", zip_bytes(members))
    else:
        write(root / "Jane Doe.zip", zip_bytes(members)[:-30])
    write(root / "Bob Smith" / "exercise-01.py", code("bob"))
    write(tmp_path / "roster.csv", roster_text())
    assignment = load_assignment(write(tmp_path / "week-3.yaml", ASSIGNMENT))
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    rows = build_rows(
        intake.handins, grade(intake.handins), assignment, read_roster(tmp_path / "roster.csv")
    )
    jane = by_email(rows)["jane@example.edu"]
    assert jane.withheld and "no grade written until you look" in jane.withheld
    assert any("no grade written until you look" in p for p in jane.problems)
    canvas_cells = {line[0]: line[5] for line in table(canvas.gradebook_csv(rows, assignment))[2:]}
    assert canvas_cells["Jane Doe"] == "" and canvas_cells["Bob Smith"] == "50"
    assert "jane@example.edu" not in moodle.grades_csv(rows, assignment)


def test_a_rosters_participant_ids_of_another_assignment_never_reach_the_worksheet(tmp_path):
    """Participant ids are per assignment: a roster with another assignment's (801...) gave an
    absent student a worksheet row "Participant 803", an id that may be someone else's here."""
    stale = {i: str(int(p) - 100) for i, p in PARTICIPANT.items()}
    text = "id,name,email,sid,participant\n" + "".join(
        f"{i},{n},{e},{s},{stale[i]}\n" for i, n, e, s, *_ in CLASS
    )
    text += "4720,Lee Absent,absent@example.edu,1020,820\n"
    rows, assignment = rows_of("moodle", tmp_path, roster=text)
    sheet = next(u for u in moodle.uploads(rows, assignment) if u.name == moodle.WORKSHEET)
    ids = {line[0] for line in table(sheet.text)[1:]}
    assert ids == {f"Participant {p}" for p in PARTICIPANT.values()}
    jane = by_email(rows)["jane@example.edu"]
    assert any("participant id 901 in the download, 801 on the roster" in p for p in jane.problems)
    absent = by_email(rows)["absent@example.edu"]
    assert any("left out of moodle-worksheet.csv" in p for p in absent.problems)


def roster_with_participants(ids: dict[str, str]) -> str:
    text = "id,name,email,sid,participant\n" + "".join(
        f"{i},{n},{e},{s},{ids.get(i, '')}\n" for i, n, e, s, *_ in CLASS
    )
    return text + "4720,Lee Absent,absent@example.edu,1020,820\n"


@pytest.mark.parametrize("layout", ["canvas", "gradescope"])
def test_a_rosters_participant_ids_never_reach_a_worksheet_for_another_platforms_class(
    tmp_path, layout
):
    """Nothing in a Canvas or Gradescope download can confirm that the roster's participant
    ids are this Moodle assignment's: the worksheet was written from them unchecked."""
    rows, assignment = rows_of(layout, tmp_path, roster=roster_with_participants(PARTICIPANT))
    assert not any(r.student.participant for r in rows)
    assert [u.name for u in moodle.uploads(rows, assignment)] == ["moodle.csv"]


def test_a_rosters_participant_ids_no_handin_confirms_leave_the_absent_out(tmp_path):
    """A Moodle download whose ids none of the roster's matches (the roster has ids only
    for students without work) cannot vouch for them."""
    rows, assignment = rows_of("moodle", tmp_path, roster=roster_with_participants({}))
    absent = by_email(rows)["absent@example.edu"]
    assert absent.student.participant == ""
    assert any("cannot be checked" in p for p in absent.problems), absent.problems
    sheet = next(u for u in moodle.uploads(rows, assignment) if u.name == moodle.WORKSHEET)
    assert {line[0] for line in table(sheet.text)[1:]} == {
        f"Participant {p}" for p in PARTICIPANT.values()
    }


def test_a_rosters_participant_ids_the_download_confirms_give_the_absent_a_row(tmp_path):
    rows, assignment = rows_of("moodle", tmp_path, roster=roster_with_participants(PARTICIPANT))
    absent = by_email(rows)["absent@example.edu"]
    assert absent.student.participant == "820"
    assert not any("moodle-worksheet" in p for p in absent.problems)
    sheet = next(u for u in moodle.uploads(rows, assignment) if u.name == moodle.WORKSHEET)
    assert "Participant 820" in {line[0] for line in table(sheet.text)[1:]}


def test_a_roster_with_participant_ids_matches_blind_marking(tmp_path):
    text = "id,name,email,sid,participant\n" + "".join(
        f"{i},{n},{e},{s},{PARTICIPANT[i]}\n" for i, n, e, s, *_ in CLASS
    )
    rows, _ = rows_of("moodle", tmp_path, blind=True, roster=text)
    assert {r.student.email: (r.roster, r.final_percent) for r in rows} == {
        "jane@example.edu": ("matched", 100.0),
        "bob@example.edu": ("matched", 0.0),
        "ann@example.edu": ("matched", 100.0),
        "kim@example.edu": ("matched", 100.0),
    }


def blind_in(word: str, tmp: Path, roster: str = "") -> tuple:
    """The class's blind-marking download as Moodle writes it for an instructor whose
    language calls a participant ``word``, graded against the roster."""
    write(tmp / "roster.csv", roster or roster_text())
    assignment = load_assignment(write(tmp / "week-3.yaml", ASSIGNMENT))
    download = same_class("moodle", tmp / "moodle", blind=True)
    for folder in list(download.iterdir()):
        folder.rename(folder.with_name(folder.name.replace("Participant_", f"{word}_", 1)))
    intake = read_submissions(download, staging=tmp / "staging", exercises=exercises())
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(tmp / "roster.csv"),
        lateness=by_name("moodle").lateness,
    )
    return rows, assignment


def upload_cells(rows: list[GradeRow], assignment) -> tuple[dict, dict, dict]:
    """(canvas.csv by name, moodle.csv by e-mail, the worksheet by identifier): each cell."""
    canvas_rows = table(next(iter(canvas.uploads(rows, assignment))).text)[2:]
    uploads = {u.name: u.text for u in moodle.uploads(rows, assignment)}
    keyed = table(uploads["moodle.csv"])[1:]
    sheet = table(uploads[moodle.WORKSHEET])[1:]
    return (
        {r[0]: r[5] for r in canvas_rows},
        {r[0]: r[3] for r in keyed},
        {r[0]: r[3] for r in sheet},
    )


def test_blind_marking_in_german_uploads_no_zero(tmp_path):
    """A German Moodle writes blind marking's folders "Teilnehmerin_901_assignsubmission_
    file_" (its "Teilnehmer/in", cleaned): each was read as a student named Teilnehmerin, off
    the roster, and every roster student got 0 in moodle.csv and canvas.csv."""
    rows, assignment = blind_in("Teilnehmerin", tmp_path)
    canvas_cells, keyed, sheet = upload_cells(rows, assignment)
    assert set(canvas_cells.values()) == {""} and keyed == {}
    assert sheet == {
        "Participant 901": "100",
        "Participant 902": "0",
        "Participant 903": "100",
        "Participant 904": "100",
    }


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=st.text(st.characters(categories=["L"]), min_size=1, max_size=12))
def test_blind_marking_in_any_language_never_uploads_a_zero(word):
    """Whatever word Moodle's language gives "Participant", a blind download gives no roster
    student a 0 (their work is there, unnamed), and the worksheet grades every participant."""
    import tempfile

    assume(word.strip() and word.lower() not in {n.split()[0].lower() for _, n, *_ in CLASS})
    with tempfile.TemporaryDirectory() as tmp:
        rows, assignment = blind_in(word, Path(tmp))
    canvas_cells, keyed, sheet = upload_cells(rows, assignment)
    assert set(canvas_cells.values()) == {""} and keyed == {}
    assert sorted(sheet) == [f"Participant {PARTICIPANT[i]}" for i, *_ in CLASS]


def blind_alone(word: str, tmp: Path) -> tuple:
    """A blind-marking download of one participant (901, the others deleted) in a Moodle whose
    language calls a participant ``word``, graded against the whole class's roster (no
    participant column)."""
    write(tmp / "roster.csv", roster_text())
    assignment = load_assignment(write(tmp / "week-3.yaml", ASSIGNMENT))
    download = same_class("moodle", tmp / "moodle", blind=True)
    for folder in list(download.iterdir()):
        if not folder.name.startswith(f"Participant_{PARTICIPANT['4711']}_"):
            for file in folder.iterdir():
                file.unlink()
            folder.rmdir()
        else:
            folder.rename(folder.with_name(folder.name.replace("Participant_", f"{word}_", 1)))
    intake = read_submissions(download, staging=tmp / "staging", exercises=exercises())
    assert intake.layout == "moodle"
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(tmp / "roster.csv"),
        lateness=by_name("moodle").lateness,
    )
    return rows, assignment


@pytest.mark.parametrize("word", ["Teilnehmerin", "Participante", "Deelnemer", "Partecipante"])
def test_one_blind_folder_in_another_language_uploads_no_zero(tmp_path, word):
    """A German Moodle's blind download of the one student who handed in is the single
    folder "Teilnehmerin_901_assignsubmission_file_": no other participant carries the word,
    so it was read as a student named Teilnehmerin, off the roster, and every roster student
    got 0 in moodle.csv and canvas.csv, their own work (in that folder) included."""
    rows, assignment = blind_alone(word, tmp_path)
    canvas_cells, keyed, sheet = upload_cells(rows, assignment)
    assert set(canvas_cells.values()) == {""} and keyed == {}
    assert sheet == {"Participant 901": "100"}
    absent = [r for r in rows if r.roster == "absent"]
    assert len(absent) == 4 and all(r.withheld for r in absent)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(word=st.text(st.characters(categories=["L"]), min_size=1, max_size=12))
def test_one_blind_folder_in_any_language_never_uploads_a_zero(word):
    """Whatever one word Moodle's language gives "Participant", a blind download of a single
    participant gives no roster student a 0: the work there may be any of theirs."""
    import tempfile

    assume(word.strip() and word.lower() not in {n.split()[0].lower() for _, n, *_ in CLASS})
    with tempfile.TemporaryDirectory() as tmp:
        rows, assignment = blind_alone(word, Path(tmp))
    canvas_cells, keyed, sheet = upload_cells(rows, assignment)
    assert "0" not in canvas_cells.values() and keyed == {}
    assert sheet == {"Participant 901": "100"}


# ---------------------------------------------------------------------------------------------
# Namesakes


def test_two_students_with_one_name_get_no_grade_and_are_named(tmp_path):
    roster = roster_text("4799,Jane Doe,jane.b@example.edu,1099\n")
    rows, assignment = rows_of("moodle", tmp_path, roster=roster)
    janes = [r for r in rows if r.student.name == "Jane Doe"]
    assert len(janes) == 3  # two on the roster, one handin that fits both
    for row in janes:
        assert row.roster in ("ambiguous", "unmatched")
        assert any("ambiguous" in p and "Jane Doe (line" in p for p in row.problems), row.problems
    keyed = table(next(u for u in moodle.uploads(rows, assignment) if u.name == "moodle.csv").text)
    cells = {line[0]: line[3] for line in keyed[1:]}
    # no grade for either Jane: no row (an empty cell would erase what Moodle holds)
    assert "jane@example.edu" not in cells and "jane.b@example.edu" not in cells
    assert cells["bob@example.edu"] == "0" and cells["ann@example.edu"] == "100"


def test_two_handins_with_one_name_do_not_take_one_roster_entry(tmp_path):
    download = tmp_path / "m"
    for participant in ("901", "902"):
        folder = download / f"Jane Doe_{participant}_assignsubmission_file_"
        write(folder / "exercise-01.py", code(f"jane {participant}"))
    write(tmp_path / "roster.csv", roster_text())
    intake = read_submissions(download, staging=tmp_path / "s", exercises=exercises())
    assignment = load_assignment(write(tmp_path / "week-3.yaml", ASSIGNMENT))
    rows = build_rows(
        intake.handins, grade(intake.handins), assignment, read_roster(tmp_path / "roster.csv")
    )
    jane = next(r for r in rows if r.student.email == "jane@example.edu")
    assert jane.roster == "ambiguous" and jane.withheld
    assert sum(1 for r in rows if r.roster == "unmatched") == 2


@pytest.mark.slow
def test_one_class_graded_from_three_downloads_by_grade_batch(tmp_path):
    """The whole pipeline: the same class downloaded from Gradescope, Canvas and Moodle, graded
    for real. Every on-time student gets the same grade from all three; late work differs only
    where the download has no times, and the gradebook and the run's end say why."""
    write(tmp_path / "roster.csv", roster_text())
    write(tmp_path / "week-3.yaml", ASSIGNMENT)
    finals: dict[str, dict[str, str]] = {}
    for layout in ("gradescope", "canvas", "moodle"):
        download = same_class(layout, tmp_path / layout)
        out = tmp_path / f"{layout}-out"
        proc = run_cli("batch", str(download), "--assignment", str(tmp_path / "week-3.yaml"),
                       "--out", str(out), "--jobs", "2", home=COURSE, timeout=600)  # fmt: skip
        assert proc.returncode == 1, proc.stdout + proc.stderr
        rows = table((out / "gradebook.csv").read_text(encoding="utf-8"))
        header = rows[0]
        body = {r[header.index("email")]: r for r in rows[2:]}
        finals[layout] = {e: r[header.index("final")] for e, r in body.items()}
        problems = {e: r[header.index("problems")] for e, r in body.items()}
        if layout == "canvas":
            assert canvas.LATE_INSTRUCTOR in problems["ann@example.edu"]
            assert "Canvas: turn on Canvas's Late Policy" in proc.stdout
        if layout == "moodle":
            assert "after the due date (a file date" in problems["kim@example.edu"]
            assert NO_TIMES in proc.stdout
    assert finals["gradescope"] == {
        "jane@example.edu": "100",
        "bob@example.edu": "0",
        "ann@example.edu": "80",
        "kim@example.edu": "0",
    }
    for layout in ("canvas", "moodle"):
        assert finals[layout] == {
            "jane@example.edu": "100",
            "bob@example.edu": "0",
            "ann@example.edu": "100",  # no times in this download: said above
            "kim@example.edu": "100",
        }


# ---------------------------------------------------------------------------------------------
# Generated input: the two rules above hold for every mix, not only the named examples

# What may lie beside the one folder, and whether it leaves the folder the download
BESIDE = {
    "own archive": True,  # "Extract All"'s zip (or tarball) of that very folder
    "hidden file": True,  # .DS_Store
    "tool folder": True,  # __MACOSX
    "other archive": False,  # another student's zip
    "own name, no archive": False,  # "Week 3-98765.txt"
    "own archive, a folder": False,  # a folder named "Week 3-98765.zip"
    "second folder": False,
    "other file": False,
}
SUFFIXES = [".zip", ".ZIP", ".tar.gz", ".tgz", ".tar"]
folder_names = st.text(string.ascii_letters + string.digits + " -_", min_size=1, max_size=12)


@settings(max_examples=150, deadline=None)
@given(
    inner=folder_names,
    beside=st.lists(st.sampled_from(sorted(BESIDE)), max_size=4),
    suffix=st.sampled_from(SUFFIXES),
)
def test_only_a_folder_whose_every_neighbour_is_its_own_archive_is_looked_into(
    inner, beside, suffix
):
    """``_only_folder`` over generated entries: it gives the folder exactly when everything
    beside it is that folder's own archive file or something no one handed in."""
    import tempfile

    from grader.lms.platform import _only_folder

    inner = inner.strip() or "x"
    assume(inner not in SKIP_DIRS)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / inner).mkdir()
        for n, kind in enumerate(beside):
            if kind == "own archive":
                write(root / f"{inner}{suffix}", "archive")
            elif kind == "hidden file":
                write(root / f".hidden{n}", "x")
            elif kind == "tool folder":
                (root / "__MACOSX").mkdir(exist_ok=True)
            elif kind == "other archive":
                write(root / f"{inner}-{n}{suffix}", "archive")
            elif kind == "own name, no archive":
                write(root / f"{inner}.txt", "x")
            elif kind == "own archive, a folder":  # the other kind of archive's name
                other = ".tar" if suffix.lower() == ".zip" else ".zip"
                (root / f"{inner}{other}").mkdir(exist_ok=True)
            elif kind == "second folder":
                (root / f"{inner}-{n}").mkdir()
            else:
                write(root / f"file-{n}.py", "x")
        found = _only_folder(root)
    expected = all(BESIDE[kind] for kind in beside)
    assert found == (root / inner if expected else None), (beside, suffix)


ROSTER_ID = ["none", "the download's", "another"]


@settings(max_examples=60, deadline=None)
@given(
    layout=st.sampled_from(["moodle", "canvas", "gradescope"]),
    ids=st.fixed_dictionaries({i: st.sampled_from(ROSTER_ID) for i in PARTICIPANT}),
    absent_id=st.booleans(),
)
def test_a_worksheet_participant_comes_from_a_handin_or_a_roster_the_download_vouches_for(
    layout, ids, absent_id
):
    """``build_rows`` over generated roster ids: every worksheet row's participant id is a
    handin's, or the roster's where the download is Moodle's, at least one of its ids equals
    the roster's and none differs."""
    import tempfile

    given_ids = {
        i: PARTICIPANT[i] if choice == "the download's" else str(int(PARTICIPANT[i]) - 100)
        for i, choice in ids.items()
        if choice != "none"
    }
    text = "id,name,email,sid,participant\n" + "".join(
        f"{i},{n},{e},{s},{given_ids.get(i, '')}\n" for i, n, e, s, *_ in CLASS
    )
    text += f"4720,Lee Absent,absent@example.edu,1020,{'820' if absent_id else ''}\n"
    with tempfile.TemporaryDirectory() as tmp:
        rows, assignment = rows_of(layout, Path(tmp), roster=text)
    vouched = (
        layout == "moodle" and "the download's" in ids.values() and "another" not in ids.values()
    )
    worksheet = [u for u in moodle.uploads(rows, assignment) if u.name == moodle.WORKSHEET]
    if layout != "moodle":
        assert not worksheet and not any(r.student.participant for r in rows)
        return
    written = {line[0] for line in table(worksheet[0].text)[1:]}
    handins = {f"Participant {p}" for p in PARTICIPANT.values()}
    assert written == handins | ({"Participant 820"} if vouched and absent_id else set())
    absent = by_email(rows)["absent@example.edu"]
    left_out = any("left out of moodle-worksheet.csv" in p for p in absent.problems)
    assert left_out == (absent_id and not vouched), absent.problems


# ---------------------------------------------------------------------------------------------
# Text entries: students paste code into them; an exercise without a file beside one is no 0


TEXT_ROSTER = "id,name,email,sid\n4711,Jane Doe,jane@example.edu,1001\n"


def text_class(layout: str, root: Path, handed: frozenset[str], text: bool) -> Path:
    """Jane's submission on ``layout``: a file for each exercise in ``handed``, and a text
    entry (Moodle's online text, Canvas's text entry) where ``text``."""
    root.mkdir(parents=True)
    for n, exercise in enumerate(sorted(handed)):
        if layout == "moodle":
            write(root / "Jane Doe_901_assignsubmission_file_" / f"{exercise}.py", code("jane"))
        else:
            write(root / f"doejane_4711_{88000 + n}_{exercise}.py", code("jane"))
    if text and layout == "moodle":
        write(root / "Jane Doe_901_assignsubmission_onlinetext_" / "onlinetext.html", "<p>def")
    elif text:
        write(root / "doejane_4711_text.html", "<p>def scale(x): return 2 * x</p>")
    if not handed and not text:  # something for the layout to be detected by
        write(root / "Bob Smith_902_assignsubmission_file_" / "notes.txt", "hi")
        write(root / "smithbob_4712_89000_notes.txt", "hi")
    return root


def text_rows(layout: str, tmp: Path, handed: frozenset[str], text: bool) -> tuple:
    write(tmp / "roster.csv", TEXT_ROSTER)
    assignment = load_assignment(write(tmp / "week-3.yaml", ASSIGNMENT))
    download = text_class(layout, tmp / layout, handed, text)
    intake = read_submissions(
        download, staging=tmp / "staging", exercises=exercises(), layout=layout
    )
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(tmp / "roster.csv"),
        lateness=by_name(layout).lateness,
    )
    return by_email(rows)["jane@example.edu"], assignment


def upload_cell(layout: str, row: GradeRow, assignment) -> str:
    if layout == "canvas":
        return table(canvas.gradebook_csv([row], assignment))[2][5]
    lines = table(moodle.worksheet_csv([row], assignment))
    return lines[1][3]


@pytest.mark.parametrize("layout", ["moodle", "canvas"])
def test_a_text_entry_alone_is_no_zero(tmp_path, layout):
    """Jane's only entry is Moodle's online text (or Canvas's text entry), with her code
    pasted in: she was uploaded as 0, "exercise-01: missing; exercise-05: missing". The
    exercises are now work intake could not read: no grade until the instructor looks."""
    jane, assignment = text_rows(layout, tmp_path, frozenset(), True)
    assert [s.status for s in jane.scores] == ["unreadable", "unreadable"]
    assert "may be in it" in jane.withheld and "no grade written until you look" in jane.withheld
    assert upload_cell(layout, jane, assignment) == ""
    assert "jane@example.edu" not in moodle.grades_csv([jane], assignment)


@settings(max_examples=30, deadline=None)
@given(
    layout=st.sampled_from(["moodle", "canvas"]),
    handed=st.frozensets(st.sampled_from(["exercise-01", "exercise-05"])),
    text=st.booleans(),
)
def test_an_exercise_without_a_file_beside_a_text_entry_gets_no_grade(layout, handed, text):
    """Whatever files come with it, a text entry makes every exercise without a file
    unreadable and the row withheld (an empty cell in every upload); without a text entry
    such an exercise is missing and the grade is written."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        jane, assignment = text_rows(layout, Path(tmp), handed, text)
    lacking = {"exercise-01", "exercise-05"} - handed
    statuses = {s.exercise: s.status for s in jane.scores}
    for exercise in lacking:
        assert statuses[exercise] == ("unreadable" if text else "missing")
    for exercise in handed:
        assert statuses[exercise] == "passed"
    withheld = text and bool(lacking)
    assert bool(jane.withheld) == withheld
    if withheld:
        assert upload_cell(layout, jane, assignment) == ""
    elif handed:
        assert upload_cell(layout, jane, assignment) == number(100 * len(handed) / 2)


# ---------------------------------------------------------------------------------------------
# File dates after the due date: the late rule's own count


@settings(max_examples=300, deadline=None)
@given(
    due=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(9999, 12, 31, 23, 59),
        timezones=st.sampled_from([timezone.utc, timezone(timedelta(hours=-5)),
                                   timezone(timedelta(hours=5, minutes=30))]),
    ),
    grace=st.sampled_from([0.0, 10.0, 525_600.0]),
    after=st.integers(-3 * 86_400, 40 * 86_400),
)  # fmt: skip
def test_a_file_is_dated_late_exactly_where_the_late_rule_counts_it_late(due, grace, after):
    """The days a file date is said to be after the due date are the days ``late_penalty``
    counts for that time, up to the last due date a file can have: ``due + grace`` stopped
    the run with an OverflowError for `due: 9999-12-31T23:59:00+00:00, grace_minutes: 10`."""
    assignment = Assignment(
        "w", (("exercise-01", 1.0),), Path("w.yaml"), due=due, grace_minutes=grace,
        late=LatePolicy(10.0),
    )  # fmt: skip
    try:
        when = due + timedelta(seconds=after)
    except OverflowError:
        assume(False)
    handin = Handin("alice")
    handin.files["exercise-01"] = Submitted("exercise-01", Path("x.py"), "alice/ex1.py",
                                            submitted_at=when)  # fmt: skip
    lines = dated_files(handin, assignment).instructor
    days, _ = late_penalty(when, assignment)
    if days:
        (line,) = lines
        assert f", {days} day(s) after the due date" in line
    else:
        assert lines == ()


def test_a_due_date_in_9999_with_grace_minutes_does_not_stop_the_run():
    due = datetime(9999, 12, 31, 23, 59, tzinfo=timezone.utc)
    assignment = Assignment("w", (("exercise-01", 1.0),), Path("w.yaml"), due=due, grace_minutes=10)
    handin = Handin("alice")
    handin.files["exercise-01"] = Submitted(
        "exercise-01", Path("x.py"), "alice/ex1.py", submitted_at=due
    )
    assert dated_files(handin, assignment).instructor == ()


def test_the_run_does_not_say_a_withheld_grade_waits_for_work_to_be_matched(tmp_path):
    """Jane's grade is withheld for her online text, with nothing to match: the run said
    "1 roster student(s) get an empty cell, never 0, until the work above is matched"."""
    download = text_class("moodle", tmp_path / "moodle", frozenset({"exercise-01"}), True)
    write(tmp_path / "roster.csv", TEXT_ROSTER)
    write(tmp_path / "week-3.yaml", ASSIGNMENT)
    proc = run_cli(
        "batch", str(download), "--assignment", str(tmp_path / "week-3.yaml"), "--out",
        str(tmp_path / "out"), home=FIXTURES / "lms-course", timeout=300,
    )  # fmt: skip
    said = proc.stdout + proc.stderr
    assert "1 roster student(s) get an empty cell, never 0, until you look" in said, said
    assert "until the work above is matched" not in said


def test_the_worksheet_advice_says_its_grades_are_out_of_moodle_points(tmp_path):
    """Moodle's worksheet import skips a grade above the assignment's maximum grade and reads
    the rest as out of it; the worksheet's own "Maximum Grade" column is not read. Out of 10
    in the assignment file and 100 in Moodle, 9/10 became 9%; the advice said nothing."""
    spec = ASSIGNMENT.replace(
        "moodle: {item: Week 3, points: 100", "moodle: {item: Week 3, points: 10"
    )
    rows, assignment = rows_of("moodle", tmp_path, spec=spec)
    line = advice(rows, assignment, "moodle")[0]
    assert line.startswith(f"Moodle: upload {moodle.WORKSHEET}")
    assert 'Its grades are out of 10 (moodle.points): the assignment\'s "Maximum grade" in ' in line
    assert "Moodle must be 10, or Moodle skips every grade above its maximum" in line


def test_the_worksheet_advice_says_to_upload_it_in_english(tmp_path):
    """Moodle's worksheet importer (``assignfeedback_offline``'s ``gradeimporter::init``)
    finds "Identifier", "Grade" and "Last modified (grade)" by their names in the uploader's
    language, and "Participant N" by its ``hiddenuser`` string: in a German Moodle (whose
    download said "Teilnehmerin") the English worksheet was refused, and the advice said
    only to upload it."""
    rows, assignment = blind_in("Teilnehmerin", tmp_path)
    line = advice(rows, assignment, "moodle")[0]
    assert line.startswith(f"Moodle: upload {moodle.WORKSHEET}")
    assert "upload it with Moodle's language set to English" in line


# ---------------------------------------------------------------------------------------------
# A file whose name names an exercise is never "nothing handed in"


def named_rows(tmp: Path, files: dict[str, str]) -> tuple:
    """Jane's Moodle submission of ``files`` (name: text), graded against the roster."""
    write(tmp / "roster.csv", TEXT_ROSTER)
    assignment = load_assignment(write(tmp / "week-3.yaml", ASSIGNMENT))
    for name, text in files.items():
        write(tmp / "moodle" / "Jane Doe_901_assignsubmission_file_" / name, text)
    intake = read_submissions(
        tmp / "moodle", staging=tmp / "staging", exercises=exercises(), layout="moodle"
    )
    rows = build_rows(intake.handins, grade(intake.handins), assignment,
                      read_roster(tmp / "roster.csv"))  # fmt: skip
    return by_email(rows)["jane@example.edu"], assignment


def test_a_file_named_after_an_exercise_with_more_after_the_number_is_no_zero(tmp_path):
    """`exercise_5_final.py` is not graded as exercise-05 (the name goes on after the number),
    but it was 0 as "missing: No file was handed in for this exercise"."""
    jane, assignment = named_rows(
        tmp_path, {"exercise-01.py": code("jane"), "exercise_5_final.py": code("jane")}
    )
    ex5 = jane.score("exercise-05")
    assert ex5 is not None and ex5.status == "unreadable"
    assert "exercise_5_final.py: looks like exercise-05" in ex5.message
    assert "no grade written until you look" in jane.withheld
    assert table(moodle.worksheet_csv([jane], assignment))[1][3] == ""


@settings(max_examples=40, deadline=None)
@given(
    prefix=st.sampled_from(["exercise", "Exercise", "ex", "EX", "e"]),
    sep=st.sampled_from(["", "-", "_", " ", "."]),
    number=st.sampled_from(["5", "05", "005"]),
    tail=st.sampled_from(["_final", "-v2", " solution", "_done", "b", "-answers"]),
    extension=st.sampled_from([".py", ".ipynb", ".PY"]),
    exact=st.booleans(),
)
def test_a_name_that_names_an_exercise_never_makes_it_missing(
    prefix, sep, number, tail, extension, exact
):
    """Whatever follows the number, a code file named after exercise 5 makes exercise-05
    unreadable and the row withheld where no file is graded for it; beside an exact
    `exercise-05.py` that one is graded and nothing is withheld."""
    import tempfile

    name = f"{prefix}{sep}{number}{tail}{extension}"
    files = {"exercise-01.py": code("jane"), name: code("jane")}
    if exact:
        files["exercise-05.py"] = code("jane")
    with tempfile.TemporaryDirectory() as tmp:
        jane, _ = named_rows(Path(tmp), files)
    ex5 = jane.score("exercise-05")
    assert ex5 is not None
    if exact:
        assert ex5.status == "passed" and not jane.withheld
    else:
        assert ex5.status == "unreadable" and jane.withheld, name


@pytest.mark.parametrize("folder", ["bob.zip", "Bob Lee.tar.gz", "carol.TGZ", "dan.tar"])
def test_a_top_folder_named_as_an_archive_is_said(tmp_path, folder):
    """A student's folder named as an archive (an archive unzipped into a folder of its
    name) is read under the folder's name, and the instructor is told why that name."""
    root = tmp_path / "class"
    write(root / folder / "exercise-01.py", code("bob"))
    write(root / "alice" / "exercise-01.py", code("alice"))
    intake = read_submissions(root, staging=tmp_path / "staging", exercises=exercises())
    by_origin = {h.origin: h for h in intake.handins}
    said = [n for n in by_origin[f"{folder}/"].notes if "a folder named as an archive" in n]
    assert len(said) == 1 and f"{folder!r}" in said[0], by_origin[f"{folder}/"].notes
    assert not any("archive" in n for n in by_origin["alice/"].notes)
