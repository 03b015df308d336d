"""The grades model and every export, checked against each platform's documented columns."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import stat
import subprocess
import tempfile
import zipfile
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.errors import UsageError
from grader.lms import autograder, canvas, gradescope, moodle
from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import ExerciseScore, TestScore, build_rows
from grader.lms.handin import Handin
from grader.results import Environment, Result, Status, TestResult
from tests.lms.builders import write
from tests.lms.test_assignment import GOOD, ROSTER

ROOT = Path(__file__).resolve().parents[2]
DUE = datetime(2026, 12, 1, 23, 59, tzinfo=timezone.utc)


def result(exercise: str, points: list[tuple[str, float, float, str]]) -> Result:
    tests = tuple(
        TestResult(name, "cpu", Status(status), got, most, f"{name} does x", message=f"{name}: msg")
        for name, got, most, status in points
    )
    graded = [t for t in tests if t.status is not Status.SKIPPED]
    return Result(
        exercise_id=exercise,
        exercise_title=exercise,
        submission=f"x/{exercise}.py",
        status=Status.PASSED if all(t.status is Status.PASSED for t in graded) else Status.FAILED,
        score=sum(t.points for t in graded),
        max_score=sum(t.max_points for t in graded),
        tests=tests,
        environment=Environment("3.11", "2.13", "linux", False),
        seed=1,
    )


@pytest.fixture
def week(tmp_path):
    write(tmp_path / "roster.csv", ROSTER + "4713,Ann Lee,ann@example.edu,1003,A\n")
    return load_assignment(write(tmp_path / "week-3.yaml", GOOD))


@pytest.fixture
def rows(week):
    jane = Handin(
        "4711",
        key_kind="lms_id",
        lms_id="4711",
        name="doejane",
        submitted_at=DUE - timedelta(hours=1),
    )
    bob = Handin(
        "1002",
        key_kind="sid",
        sid="1002",
        name="Bob Smith",
        submitted_at=DUE + timedelta(days=1, hours=2),
    )
    bob.unreadable["exercise-05"] = "bob.zip: not a readable zip archive"
    stranger = Handin("zed", name="Zed Unknown")
    scores = {
        "4711": {
            "exercise-01": ExerciseScore.from_result(
                result(
                    "exercise-01",
                    [
                        ("test_a", 2, 2, "passed"),
                        ("test_b", 0, 2, "failed"),
                        ("test_c", 0, 1, "skipped"),
                    ],
                )
            ),
            "exercise-05": ExerciseScore.from_result(
                result("exercise-05", [("test_x", 3, 3, "passed")])
            ),
        },
        "1002": {
            "exercise-01": ExerciseScore.from_result(
                result("exercise-01", [("test_a", 2, 2, "passed"), ("test_b", 2, 2, "passed")])
            )
        },
        "zed": {},
    }
    return build_rows([jane, bob, stranger], scores, week, read_roster(week.roster))


def test_the_grades_model(rows):
    by_name = {r.student.name: r for r in rows}
    assert [r.student.name for r in rows] == ["Ann Lee", "Bob Smith", "Jane Doe", "Zed Unknown"]
    jane = by_name["Jane Doe"]  # (1 * 2/4 + 2 * 3/3) / 3 = 83.33%
    assert (
        jane.student.lms_id == "4711" and jane.student.sid == "1001" and jane.student.section == "A"
    )
    assert jane.weighted_percent == pytest.approx(250 / 3)
    assert (jane.days_late, jane.final_percent) == (0, pytest.approx(250 / 3))
    assert [t.name for t in jane.score("exercise-01").tests] == ["test_a[cpu]", "test_b[cpu]"]
    bob = by_name["Bob Smith"]  # exercise-01 full, exercise-05 unreadable: 33.33%; 2 days late
    assert bob.score("exercise-05").status == "unreadable"
    assert (bob.days_late, bob.late_percent) == (2, 20.0)
    assert bob.final_percent == pytest.approx(100 / 3 - 20)
    ann = by_name["Ann Lee"]
    assert ann.weighted_percent is None and ann.final_percent is None
    assert [s.status for s in ann.scores] == ["missing", "missing"]
    zed = by_name["Zed Unknown"]
    assert "not on the roster: check who this is" in zed.problems


def test_canvas_gradebook_import_csv(rows, week):
    text = canvas.gradebook_csv(rows, week)
    assert text == (
        "Student,ID,SIS User ID,SIS Login ID,Section,Week 3 (48213)\n"
        "Points Possible,,,,,20\n"
        "Ann Lee,4713,1003,,A,\n"  # missing: blank leaves Canvas's grade as it is
        "Bob Smith,4712,1002,,B,2.67\n"
        "Jane Doe,4711,1001,,A,16.67\n"
        "Zed Unknown,,,,,\n"
    )
    header = next(csv.reader(io.StringIO(text)))
    # What Canvas's GradebookImporter checks: "Student" first, "ID" second, "Section" last.
    assert "Student" in header[0] and "ID" in header[1] and header[4] == "Section"
    assert canvas.gradebook_csv(list(reversed(rows)), week) == text  # byte-stable


def test_moodle_grade_import_csv(rows, week, tmp_path):
    text = moodle.grades_csv(rows, week)
    # Ann (no work, missing: blank) and Zed (no ID number) have no row: Moodle's importer reads
    # an empty grade as "no grade" (it erased Ann's), and a row without its key as the row
    # above's student (Zed's grade went to Jane, or the import stopped)
    assert text.splitlines() == [
        "ID number,Email address,Full name,Week 3 grade",
        "1002,bob@example.edu,Bob Smith,1.33",
        "1001,jane@example.edu,Jane Doe,8.33",
    ]
    unkeyed, ungraded = moodle.left_out(rows, week)
    assert [r.student.name for r in unkeyed] == ["Zed Unknown"]
    assert [r.student.name for r in ungraded] == ["Ann Lee"]
    by_email = load_assignment(
        write(
            tmp_path / "w.yaml",
            GOOD.replace("key: idnumber, feedback: false", "key: email").replace(
                "missing: blank", "missing: zero"
            ),
        )
    )
    text = moodle.grades_csv(rows, by_email)
    lines = list(csv.reader(io.StringIO(text)))
    assert lines[0] == ["Email address", "ID number", "Full name", "Week 3 grade", "Feedback"]
    assert lines[1] == [
        "ann@example.edu",
        "1003",
        "Ann Lee",
        "0",
        "exercise-01: missing; exercise-05: missing",
    ]
    assert (
        lines[2][4]
        == "exercise-01: 4/4; exercise-05: unreadable; 2 day(s) late: -20%; total 13.33%"
    )


def test_gradescope_results_json(rows, week):
    jane = next(r for r in rows if r.student.name == "Jane Doe")
    data = json.loads(gradescope.results_json(jane, week, isolation="process"))
    assert set(data) == {
        "execution_time",
        "output",
        "score",
        "stdout_visibility",
        "tests",
        "visibility",
    }
    assert data["score"] == 41.67  # 83.33% of gradescope.points 50
    assert data["stdout_visibility"] == "hidden" and data["visibility"] == "visible"
    assert data["tests"] == [
        # exercise-01 weighs 1/3 of 50 points = 16.6667, shared by its 4 graded points
        {"name": "exercise-01: test_a[cpu]", "score": 8.3333, "max_score": 8.3333, "status": "passed",
         "output": "test_a: msg", "visibility": "after_published"},
        {"name": "exercise-01: test_b[cpu]", "score": 0.0, "max_score": 8.3333, "status": "failed",
         "output": "test_b: msg", "visibility": "after_published"},
        {"name": "exercise-05: test_x[cpu]", "score": 33.3333, "max_score": 33.3333, "status": "passed",
         "output": "test_x: msg", "visibility": "after_published"},
    ]  # fmt: skip
    assert "Graded in the grader's 'process' isolation tier." in data["output"]
    bob = json.loads(
        gradescope.results_json(next(r for r in rows if r.student.name == "Bob Smith"), week)
    )
    assert bob["tests"][-1] == {
        "name": "exercise-05: unreadable",
        "score": 0.0,
        "max_score": 33.3333,
        "status": "failed",
        "output": "The file could not be read: bob.zip: not a readable zip archive",
        "visibility": "visible",  # a learner must always see that their file was not read
    }
    assert "Handed in 2 day(s) late: -20 percentage points" in bob["output"]
    assert bob["score"] == pytest.approx(50 * (100 / 3 - 20) / 100, abs=0.01)


@pytest.mark.parametrize(
    ("settings", "tests", "score_shown"),
    [
        ({}, "visible", True),
        ({"hidden_tests": "after_published"}, "after_published", False),
        ({"visibility": "after_published"}, "after_published", False),
        ({"visibility": "after_due_date"}, "after_due_date", False),
        ({"visibility": "after_due_date", "hidden_tests": "visible"}, "visible", True),
        ({"hidden_tests": "hidden"}, "hidden", True),
    ],
)
def test_gradescope_visibility_follows_the_specification(rows, week, settings, tests, score_shown):
    """Gradescope's specification ("Controlling Test Case Visibility"): the top-level
    ``visibility`` is every test's default, a test's own ``visibility`` overrides it, and while
    a graded test is not yet shown the total score is hidden as well (``hidden`` tests do not
    hide it). The top-level output must then not state the score either."""
    chosen = replace(week, gradescope=replace(week.gradescope, **{"hidden_tests": "", **settings}))
    bob = next(r for r in rows if r.student.name == "Bob Smith")
    data = json.loads(gradescope.results_json(bob, chosen))
    assert data["visibility"] == settings.get("visibility", "visible")
    graded = [t for t in data["tests"] if not t["name"].endswith(": unreadable")]
    assert graded and all(t["visibility"] == tests for t in graded)
    assert data["tests"][-1]["visibility"] == "visible"  # a file not read is always shown
    assert ("Score: " in data["output"]) is score_shown, data["output"]
    assert ("% in all" in data["output"]) is score_shown, data["output"]
    assert "Handed in 2 day(s) late: -20 percentage points" in data["output"]
    if not score_shown:
        when = "after the due date" if tests == "after_due_date" else "publishes the grades"
        assert when in data["output"]


def test_stdout_visibility_takes_gradescopes_four_values(tmp_path):
    for value in ("hidden", "visible", "after_due_date", "after_published"):
        text = GOOD.replace("stdout_visibility: hidden", f"stdout_visibility: {value}")
        write(tmp_path / "roster.csv", ROSTER)
        chosen = load_assignment(write(tmp_path / "week-3.yaml", text))
        assert chosen.gradescope.stdout_visibility == value


def test_a_grader_fault_gives_score_0_and_says_whom_to_ask(rows, week):
    jane = next(r for r in rows if r.student.name == "Jane Doe")
    why = "the grader itself failed in exercise-01"
    data = json.loads(gradescope.results_json(jane, week, isolation="process", fault=why))
    assert data["score"] == 0.0
    assert data["output"].startswith(f"The autograder could not grade this submission ({why}).")
    assert "contact your instructor" in data["output"]
    assert len(data["tests"]) == 3  # as graded, for the instructor to look at
    assert data["visibility"] == "visible"
    failed = json.loads(
        gradescope.fault_json("no such exercise", execution_time=2.4, assignment=week)
    )
    assert failed == {
        "score": 0.0,
        "execution_time": 2,
        "output": gradescope.contact_line("no such exercise"),
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [],
    }


def test_a_gradescope_run_from_metadata_to_results(week, tmp_path, infos):
    metadata = write(
        tmp_path / "submission_metadata.json",
        json.dumps(
            {
                "id": 123456,
                "created_at": "2026-12-02T01:30:00.000000-08:00",
                "assignment": {
                    "due_date": "2026-12-01T23:59:00.000000+00:00",
                    "late_due_date": None,
                },
                "users": [
                    {"email": "jane@example.edu", "id": 1, "name": "Jane Doe", "sid": "1001"}
                ],
            }
        ),
    )
    write(tmp_path / "submission" / "ex1.py", "def add(a, b):\n    return a + b\n")
    meta = gradescope.read_run_metadata(metadata)
    assert meta.created_at == datetime(2026, 12, 2, 9, 30, tzinfo=timezone.utc)
    handin = gradescope.prepare_run(
        tmp_path / "submission", meta, staging=tmp_path / "staging", exercises=infos
    )
    assert (handin.key, handin.name, set(handin.files)) == ("1001", "Jane Doe", {"exercise-01"})
    score = ExerciseScore("exercise-01", "passed", 4, 4, (TestScore("test_a", 4, 4, True),))
    data = json.loads(gradescope.finish_run(handin, meta, {"exercise-01": score}, week))
    assert data["score"] == pytest.approx(50 * (100 / 3 - 10) / 100, abs=0.01)  # 1 day late
    assert gradescope.read_run_metadata(tmp_path / "absent.json") == gradescope.RunMetadata()


@pytest.mark.parametrize(
    ("total", "out_of"), [(20, 20.0), ("20.0", 20.0), (50, 50.0), (None, 50.0), ("x", 50.0)]
)
def test_a_run_is_scored_out_of_gradescopes_own_total(week, tmp_path, infos, total, out_of):
    """Gradescope shows the score against the assignment's total points: with
    gradescope.points 50 on a 20-point assignment a student read 41.67/20. The metadata's
    total_points, where it is a number, is what the score is out of, and the output says so."""
    assignment = {"due_date": None}
    if total is not None:
        assignment["total_points"] = total
    metadata = write(
        tmp_path / "submission_metadata.json",
        json.dumps({"created_at": "2026-11-30T10:00:00+00:00", "assignment": assignment}),
    )
    write(tmp_path / "submission" / "ex1.py", "def add(a, b):\n    return a + b\n")
    meta = gradescope.read_run_metadata(metadata)
    handin = gradescope.prepare_run(
        tmp_path / "submission", meta, staging=tmp_path / "staging", exercises=infos
    )
    score = ExerciseScore("exercise-01", "passed", 4, 4, (TestScore("test_a", 4, 4, True),))
    data = json.loads(gradescope.finish_run(handin, meta, {"exercise-01": score}, week))
    assert week.gradescope.points == 50
    assert sum(t["max_score"] for t in data["tests"]) == pytest.approx(out_of, abs=0.01)
    assert ("scored out of Gradescope's 20 points" in data["output"]) == (out_of == 20.0)


def test_the_autograder_zip(week, tmp_path):
    files = autograder.autograder_files(week, course=ROOT)
    assert {"setup.sh", "run_autograder", "assignment.yaml", "requirements.txt"} <= set(files)
    assert files["run_autograder"][1] == files["setup.sh"][1] == 0o755
    names = set(files)
    assert "grader/lms/intake.py" in names and "grader/resources.py" in names
    assert any(n.startswith("grader/_data/exercises/exercise-05/") for n in names)
    assert any(n.startswith("grader/_data/solutions/exercise-01/") for n in names)
    assert not any(n.startswith("grader/_data/exercises/exercise-07/") for n in names)
    assert not any(n.startswith("grader/_data/solutions/exercise-07/") for n in names)
    assert not any("__pycache__" in n for n in names)
    # no roster: the shipped assignment loads as the same assignment, roster aside
    assert not any("roster" in n for n in names)
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "assignment.yaml").write_bytes(files["assignment.yaml"][0])
    again = load_assignment(shipped / "assignment.yaml")
    assert replace(again, path=week.path) == replace(week, roster=None)
    first, second = tmp_path / "a.zip", tmp_path / "b.zip"
    autograder.autograder_zip(first, files)
    autograder.autograder_zip(second, autograder.autograder_files(week, course=ROOT))
    assert first.read_bytes() == second.read_bytes()  # byte-stable
    with zipfile.ZipFile(first) as zf:
        info = zf.getinfo("run_autograder")
        assert stat.S_IMODE(info.external_attr >> 16) == 0o755
        assert zf.read("setup.sh").startswith(b"#!/usr/bin/env bash")


@pytest.mark.parametrize(
    "text",
    [
        "{format_version: 1, name: w, exercises: {exercise-01: 1}, roster: lists/class.csv}\n",
        "format_version: 1\nname: w\nroster: lists/class.csv\nexercises: {exercise-01: 1}\n",
        "format_version: 1\nname: w\nroster:\n  lists/class.csv\nexercises: {exercise-01: 1}\n",
    ],
)
def test_the_roster_stays_home_however_it_is_written(tmp_path, text):
    """The autograder grades one submission named by Gradescope's metadata: the roster's
    names, e-mails and student numbers are not shipped, and the assignment still loads the
    same, roster aside."""
    write(tmp_path / "lists" / "class.csv", ROSTER)
    week = load_assignment(write(tmp_path / "week.yaml", text))
    assert week.roster is not None
    files = autograder.shipped_assignment(week)
    assert set(files) == {"assignment.yaml"}
    shipped = tmp_path / "shipped"
    shipped.mkdir()
    (shipped / "assignment.yaml").write_bytes(files["assignment.yaml"][0])
    assert b"class.csv" not in files["assignment.yaml"][0]
    again = load_assignment(shipped / "assignment.yaml")
    assert again.roster is None
    assert replace(again, path=week.path) == replace(week, roster=None)


def test_an_assignment_with_extensions_builds_no_autograder(tmp_path):
    """Extensions name students (ids, e-mails): shipped, they reached Gradescope's machines,
    where no roster goes; left out, the autograder penalised the extended student by the
    class's due date. Neither: the build stops and says what to do."""
    text = (
        "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n"
        "due: 2026-12-01T20:00:00+00:00\n"
        "extensions: {ann@example.edu: 2026-12-04T20:00:00+00:00}\n"
    )
    week = load_assignment(write(tmp_path / "week.yaml", text))
    with pytest.raises(UsageError, match="its extensions name students") as caught:
        autograder.autograder_files(week, course=ROOT)
    assert "`grade batch` from Gradescope's export" in str(caught.value.hint)


def write_executable(path: Path, text: str) -> Path:
    write(path, text)
    path.chmod(0o755)
    return path


def test_run_autograder_calls_the_documented_command_and_always_leaves_results(week, tmp_path):
    script = autograder.autograder_files(week, course=ROOT)["run_autograder"][0].decode()
    root = tmp_path / "autograder"
    (root / "source").mkdir(parents=True)
    run = write_executable(root / "source" / "run_autograder", script)
    fake = write_executable(
        tmp_path / "python",
        '#!/usr/bin/env bash\n{ echo "$PYTHONPATH"; echo "${GRADER_HOME-unset}"; pwd; } '
        '> "$GRADESCOPE_ROOT/called"\nprintf "%s\\n" "$@" >> "$GRADESCOPE_ROOT/called"\nexit 3\n',
    )
    env = {
        **os.environ,
        "GRADESCOPE_ROOT": str(root),
        "GRADER_PYTHON": str(fake),
        "GRADER_HOME": "/elsewhere",
    }
    done = subprocess.run(["bash", str(run)], env=env, capture_output=True, timeout=30)
    assert done.returncode == 0
    assert (root / "called").read_text().splitlines() == [
        f"{root}/source",  # PYTHONPATH: the shipped package
        "unset",  # GRADER_HOME: the shipped course, never another
        f"{root}/source",
        "-m",
        "grader",
        "gradescope-run",
        "--submission",
        f"{root}/submission",
        "--metadata",
        f"{root}/submission_metadata.json",
        "--assignment",
        f"{root}/source/assignment.yaml",
        "--results",
        f"{root}/results/results.json",
        "--lang",
        "en",
    ]
    fallback = json.loads((root / "results" / "results.json").read_text())
    assert fallback["score"] == 0 and "exit code 3" in fallback["output"]
    assert "execution_time" in fallback and fallback["tests"] == []
    # the hidden tests are root's alone before any learner code runs
    assert stat.S_IMODE((root / "source").stat().st_mode) & 0o077 == 0


_RISKY_ID = st.builds(
    "{}{}".format,
    st.sampled_from(["-", "+", "=", "@", ""]),
    st.text(st.sampled_from("abcz019.@_-+"), min_size=1, max_size=12),
)


@given(email=_RISKY_ID, sid=_RISKY_ID, lms_id=_RISKY_ID, login=_RISKY_ID)
def test_the_ids_an_lms_matches_are_written_as_they_are(email, sid, lms_id, login):
    """A leading ``'`` (the guard against spreadsheet formulas) before ``-jane@uni.edu``, a
    legal address, made Moodle's import match no one. The columns an LMS matches are written
    as given; the names beside them, which a learner may choose, keep the guard."""
    from grader.lms.grades import GradeRow, Student

    student = Student(
        key="k",
        name="=HYPERLINK(x)",
        email=email,
        sid=sid,
        lms_id=lms_id,
        login=login,
        participant="7",
    )
    row = GradeRow(student=student, scores=(), weighted_percent=50.0, final_percent=50.0)
    folder = Path(tempfile.mkdtemp())
    assignment = load_assignment(
        write(folder / "w.yaml", "format_version: 1\nname: w1\nexercises: {exercise-01: 1}\n")
    )
    for key in ("email", "idnumber"):
        settings = replace(assignment.moodle_settings(), key=key)
        with_key = replace(assignment, moodle=settings)
        line = list(csv.reader(io.StringIO(moodle.grades_csv([row], with_key))))[1]
        assert line[:3] == ([email, sid] if key == "email" else [sid, email]) + ["'=HYPERLINK(x)"]
    sheet = list(csv.reader(io.StringIO(moodle.worksheet_csv([row], assignment))))[1]
    assert sheet[:2] == ["Participant 7", "'=HYPERLINK(x)"]
    line = list(csv.reader(io.StringIO(canvas.gradebook_csv([row], assignment))))[2]
    assert line[:4] == ["'=HYPERLINK(x)", lms_id, sid, login]


def test_a_gradescope_run_whose_time_cannot_be_read_says_so(week, tmp_path, infos):
    """A created_at the grader cannot read (no seconds it once could not parse; no zone) gave
    the full score and said nothing; a time it can read is read, and one it cannot is said in
    the results, beside a grade without a late penalty."""
    write(tmp_path / "submission" / "ex1.py", "def add(a, b):\n    return a + b\n")
    score = ExerciseScore("exercise-01", "passed", 4, 4, (TestScore("test_a", 4, 4, True),))
    outputs = {}
    for label, created in (
        ("no seconds", "2026-12-02T01:30-08:00"),
        ("no zone", "2026-12-02T01:30:00"),
    ):
        metadata = write(
            tmp_path / f"{label}.json", json.dumps({"created_at": created, "users": []})
        )
        meta = gradescope.read_run_metadata(metadata)
        handin = gradescope.prepare_run(
            tmp_path / "submission", meta, staging=tmp_path / label, exercises=infos
        )
        outputs[label] = (meta, gradescope.finish_run(handin, meta, {"exercise-01": score}, week))
    meta, text = outputs["no seconds"]
    assert meta.created_at == datetime(2026, 12, 2, 9, 30, tzinfo=timezone.utc)
    assert "could not be read" not in text
    meta, text = outputs["no zone"]
    assert meta.created_at is None
    assert "submission time could not be read: no late penalty was applied" in text


@given(
    when=st.datetimes(
        min_value=datetime(2000, 1, 1), max_value=datetime(2100, 1, 1), timezones=st.just(None)
    ),
    offset=st.integers(-14 * 60, 14 * 60),
    form=st.sampled_from(["iso", "ruby", "short", "z"]),
)
def test_gradescope_times_are_read_in_every_form_it_writes_and_never_without_a_zone(
    when, offset, form
):
    from datetime import timedelta as delta

    zone = timezone(delta(minutes=offset)) if form != "z" else timezone.utc
    aware = when.replace(tzinfo=zone)
    sign = "+" if offset >= 0 else "-"
    hhmm = f"{sign}{abs(offset) // 60:02d}:{abs(offset) % 60:02d}"
    text = {
        "iso": aware.isoformat(),
        "ruby": f"{when:%Y-%m-%d %H:%M:%S}.{when.microsecond:06d}000 {hhmm}",
        "short": f"{when:%Y-%m-%dT%H:%M}{hhmm}",
        "z": f"{when:%Y-%m-%dT%H:%M:%S}Z",
    }[form]
    expected = aware.replace(second=0, microsecond=0) if form == "short" else aware
    if form == "z":
        expected = expected.replace(microsecond=0)
    assert gradescope.parse_time(text) == expected
    # the same time without its zone: none (taken as UTC, it was hours off)
    assert gradescope.parse_time(f"{when:%Y-%m-%d %H:%M:%S}") is None
    assert gradescope.parse_time(f"{when:%Y-%m-%dT%H:%M}") is None


def test_a_gradescope_export_time_without_a_zone_is_refused_naming_its_field(tmp_path):
    from grader.errors import UsageError

    path = write(
        tmp_path / "submission_metadata.yml",
        "submission_1:\n  :submitters: []\n  :created_at: 2026-12-02 03:00:00\n",
    )
    with pytest.raises(
        UsageError, match=r"submission_1\.:created_at'?: '2026-12-02 03:00:00' has no time zone"
    ):
        gradescope.read_metadata(path)


def test_a_gradescope_submission_without_a_time_is_said_to_get_no_late_penalty(tmp_path, infos):
    from grader.lms.intake import read_submissions

    root = tmp_path / "export"
    write(root / "submission_metadata.yml", "submission_1:\n  :submitters: []\n")
    write(root / "submission_1" / "exercise-01.py", "def add(a, b):\n    return a + b\n")
    [handin] = read_submissions(root, staging=tmp_path / "s", exercises=infos).handins
    assert handin.submitted_at is None
    assert any("no submission time" in p and "no late penalty" in p for p in handin.problems)


# ---------------------------------------------------------------------------------------------
# Rounding: half up, on the number as written


def test_a_grade_on_a_half_hundredth_is_rounded_up_in_every_upload():
    """Four exercises with eight equal tests each, 7/8, 7/8, 7/8 and 8/8: 90.625%. Python's
    round() (half to even) uploaded 90.62 to Canvas and Moodle, where anyone grading by hand,
    and Canvas itself, write 90.63."""
    from grader.lms.assignment import Assignment
    from grader.lms.grades import Student, build_row

    ids = ("exercise-01", "exercise-02", "exercise-03", "exercise-04")
    assignment = Assignment("w", tuple((e, 1.0) for e in ids), Path("w.yaml"))
    scores = {
        e: ExerciseScore(e, "failed" if got < 8 else "passed", float(got), 8.0)
        for e, got in zip(ids, (7, 7, 7, 8), strict=True)
    }
    row = build_row(Student("4711", "Jane Doe", "jane@x.edu", lms_id="4711"), scores, assignment)
    assert row.final_percent == 90.625
    assert list(csv.reader(io.StringIO(canvas.gradebook_csv([row], assignment))))[2][5] == "90.63"
    assert list(csv.reader(io.StringIO(moodle.grades_csv([row], assignment))))[1][3] == "90.63"
    assert "total 90.63%" in moodle.feedback(row)


@given(
    cents=st.integers(0, 10_000_000),
    maximum=st.sampled_from([1.0, 10.0, 20.0, 30.0, 100.0, 250.0]),
)
def test_points_round_half_up_as_written(cents, maximum):
    """Any percentage with at most three decimals (what weights and test points give at a
    tie) becomes points of the maximum rounded half up on its decimal value."""
    from decimal import ROUND_HALF_UP, Decimal

    from grader.i18n import number
    from grader.lms.grades import points

    percent = cents / 1000
    exact = (Decimal(cents) / 1000 * Decimal(repr(maximum)) / 100).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_UP
    )
    assert points(percent, maximum) == float(exact)
    shown = (Decimal(cents) / 1000).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    assert number(percent) == (format(shown, "f").rstrip("0").rstrip(".") or "0")


# -- every file written for people holds outside text inert ----------------------------------

# what no such file may hold: C0 and C1 controls but newline and tab, DEL, lone surrogates,
# the bidirectional overrides and isolates
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\u202a-\u202e\u2066-\u2069]")
_RISKY = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\Z")
outside_text = st.text(
    st.characters(blacklist_categories=())  # surrogates too
    | st.sampled_from(["\x1b", "\x07", "\r", "\n", "\t", "\x85", "\u202e", "\udcff", "=", "@"]),
    min_size=1,
    max_size=12,
)


def _inert_text(text: str, where: str) -> None:
    text.encode("utf-8")  # strict: no lone surrogate
    assert not _CONTROL.search(text), (where, text)


def _inert_strings(value: object, where: str) -> None:
    if isinstance(value, str):
        _inert_text(value, where)
    elif isinstance(value, dict):
        for key, item in value.items():
            _inert_strings(key, where)
            _inert_strings(item, where)
    elif isinstance(value, list):
        for item in value:
            _inert_strings(item, where)


def _safe_csv(text: str, where: str) -> None:
    _inert_text(text, where)
    for line in csv.reader(io.StringIO(text)):
        for value in line:
            assert "\n" not in value and "\t" not in value, (where, value)
            assert not value.startswith(_RISKY) or _NUMBER.match(value), (where, value)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=outside_text)
def test_every_file_written_for_people_holds_outside_text_inert(week, text):
    """An archive member named ``\\x1b[31mRED`` reached gradebook.csv's problems raw (ESC and
    BEL bytes), though the terminal showed it escaped. Whatever a name, a member, a message or
    learner output holds, the gradebook, the upload files, results.json, the class report and
    the feedback pages hold it inert: no control code, no lone surrogate, and no CSV cell that
    a spreadsheet would run."""
    from grader.lms.feedback import feedback_html
    from grader.lms.gradebook import class_stats, exercise_maxima, gradebook_csv, gradebook_json
    from grader.lms.platforms import platforms
    from grader.render.classreport import render_class

    zed = Handin("zed", name=text, origin=text)
    zed.problems.append(f"zed/w.tar:{text}: not a .py or .ipynb file; ignored")
    zed.unreadable["exercise-05"] = f"zed/{text}.zip: not a readable zip archive"
    graded = replace(
        result("exercise-01", [("test_a", 1, 2, "failed")]),
        tests=(
            TestResult(
                "test_a", "cpu", Status.FAILED, 1, 2, text, message=text, output=f"{text}\n"
            ),
        ),
        submission=f"zed/{text}",
    )
    rows = build_rows(
        [zed], {"zed": {"exercise-01": ExerciseScore.from_result(graded)}}, week, None
    )
    maxima = exercise_maxima(rows, week, {})
    titles = {e: e for e in week.ids}
    _safe_csv(gradebook_csv(rows, week, maxima, incomplete=text), "gradebook.csv")
    _inert_strings(json.loads(gradebook_json(rows, week, maxima, titles)), "gradebook.json")
    for platform in platforms():
        for upload in platform.uploads(rows, week):
            _safe_csv(upload.text, upload.name)
    for row in rows:
        _inert_strings(json.loads(gradescope.results_json(row, week)), "results.json")
        _inert_text(
            feedback_html(row, {"exercise-01": graded}, week, "en", titles), "feedback page"
        )
    stats = class_stats(rows, {("zed", "exercise-01"): graded}, week, maxima, titles)
    _inert_text(render_class(rows, week, maxima, titles, stats, [text], "en"), "index.html")


member = st.fixed_dictionaries(
    {
        "name": st.sampled_from(["", "Pat Roe", "  "]),
        "email": st.sampled_from(["", "pat@example.edu"]),
        "sid": st.sampled_from(["", "1002"]),
    }
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(others=st.lists(member, min_size=1, max_size=3))
def test_a_group_run_names_every_member_by_what_gradescope_gives(tmp_path, infos, others):
    """A member Gradescope gives only a SID (or nothing) was named by an empty string: "a
    group submission, with , Bob". Each is named by its name, else e-mail, else SID."""
    users = [{"email": "jane@example.edu", "id": 1, "name": "Jane Doe", "sid": "1001"}] + others
    metadata = write(
        tmp_path / "submission_metadata.json",
        json.dumps({"created_at": "2026-11-30T10:00:00+00:00", "users": users}),
    )
    write(tmp_path / "submission" / "ex1.py", "def add(a, b):\n    return a + b\n")
    meta = gradescope.read_run_metadata(metadata)
    handin = gradescope.prepare_run(
        tmp_path / "submission", meta, staging=tmp_path / "staging", exercises=infos
    )
    (note,) = [n for n in handin.notes if n.startswith("a group submission, with ")]
    named = note.removeprefix("a group submission, with ").split(", ")
    assert len(named) == len(others) and all(n.strip() for n in named), note
    for who, user in zip(named, others, strict=True):
        expected = user["name"].strip() or user["email"] or (user["sid"] and f"SID {user['sid']}")
        assert who == (expected or "a member with no name or SID"), note
