"""``grade batch --assignment`` on a whole class in each layout an LMS really produces (see
``classes.py``), with a roster: exactly one row per roster student, the assignment's columns
whatever was handed in, and the right scores after weights and the late rule.

The course is ``tests/fixtures/lms-course`` (exercise-01 3 points, exercise-05 2, exercise-07 3);
every file the class builders write solves its exercise unless its tag says "wrong".
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest

from tests.conftest import FIXTURES, run_cli
from tests.lms.builders import code, write
from tests.lms.classes import canvas_download, class_folders, gradescope_export, moodle_download

COURSE = FIXTURES / "lms-course"
EXERCISES = ["exercise-01", "exercise-05", "exercise-07"]
ASSIGNMENT = """\
format_version: 1
name: week-3
title: Week 3
exercises: {exercise-01: 1, exercise-05: 2, exercise-07: 1}
roster: roster.csv
due: 2026-12-01T20:00:00+00:00
late: {per_day_percent: 10, max_days: 3}
canvas: {assignment_id: 48213, points: 20}
moodle: {item: Week 3, points: 10, key: email}
"""
PEOPLE = [  # Canvas user id, name, e-mail, SID (Gradescope's), as a course's roster has them
    ("4711", "Jane Doe", "jane.doe@example.edu", "1001"),
    ("4712", "Bob Smith", "bob@example.edu", "1002"),
    ("4713", "Ann Lee", "ann@example.edu", "1003"),
    ("4714", "Pat O'Brien", "pat@example.edu", "1004"),
    ("4715", "Kim Nguyen", "kim@example.edu", "1005"),
    ("4716", "Eve Hostile", "eve@example.edu", "1006"),
    ("4717", "Quiet Student", "quiet@example.edu", "1009"),
]
FOLDER_PEOPLE = [  # a class collected by hand: folders named by the student's id
    ("alice", "Alice Wong", "alice@example.edu", ""),
    ("bob", "Bob Stone", "bstone@example.edu", ""),
    ("s003", "Carol Diaz", "carol@example.edu", ""),  # her folder is "Carol Diaz"
    ("dan", "Dan Brown", "dan@example.edu", ""),
    ("erin", "Erin Wu", "erin@example.edu", ""),
    ("frank", "Frank Moss", "frank@example.edu", ""),
    ("grace", "Grace Hall", "grace@example.edu", ""),  # hands nothing in
]
M = "missing"
U = "unreadable"


def folders(root: Path) -> Path:
    made = class_folders(root)
    write(made / "frank" / "Exercise_05.py", code("frank wrong"))
    return made


def gradescope(root: Path) -> Path:
    made = gradescope_export(root)
    write(made / "submission_1002" / "Exercise05.py", code("bob 5 wrong"))
    return made


def canvas(root: Path) -> Path:
    made = canvas_download(root)
    write(made / "smithbob_4712_88303_exercise-01 copy.py", code("bob 1 wrong"))
    return made


def moodle(root: Path) -> Path:
    made = moodle_download(root)
    newer = made / "Ann Lee_1234569_assignsubmission_file_exercise-05 (1).py"
    stat = newer.stat()
    write(newer, code("ann new wrong"), stat.st_mtime)
    return made


# key: (exercise-01, exercise-05, exercise-07, final percent), for every row of the gradebook
EXPECTED = {
    "folders": {
        "alice": ("3", "2", "3", "100"),  # her later zip's exercise-01 over her folder's
        "bob": (M, "2", M, "50"),  # Exercise05.py in a .tar.gz
        "s003": (M, M, "3", "25"),  # ex7.ipynb; matched to the roster by name
        # the one safe member of a hostile .tgz; its links and device named exercise-01 and
        # exercise-07 were handed in, refused: unreadable (0), not missing
        "dan": (U, "2", U, "50"),
        "erin": ("3", M, U, "25"),  # exercise-07.py is a FIFO
        "frank": (M, "0", M, "0"),  # Exercise_05.py, wrong
        "grace": (M, M, M, ""),  # on the roster, nothing handed in
    },
    "gradescope": {
        "4711": ("3", M, "3", "40"),  # a notebook; 23:01 UTC: one day late, -10
        "4712": ("3", "0", "3", "50"),  # ex1.py, Exercise05.py (wrong, weight 2)
        "4713": (M, "2", M, "50"),  # a group submission: both members get its grade
        "4714": (M, "2", M, "50"),
        "4715": ("0", M, M, "0"),  # the unchanged starter, three days late
        "4716": (U, U, U, "0"),  # a hostile zip (its entries refused) and a FIFO
        "4717": (M, M, M, ""),
        "submission_1007": ("3", M, M, "25"),  # not in the metadata, so not on the roster
        # in the metadata, not on the roster, no folder: work that could not be read
        "1008": (U, U, U, "0"),
    },
    "canvas": {
        "4711": ("3", M, "3", "50"),  # the resubmission; LATE without a time: no penalty
        "4712": ("0", "2", "3", "75"),  # "exercise-01 copy.py" (wrong), work.zip's two
        # beside a text entry (not graded), an exercise without a file may be in it
        "4713": (U, "2", U, "50"),
        "4714": (M, M, U, "0"),
        "4715": (U, U, U, "0"),  # only a hostile zip: its entries refused, unreadable
        "4716": (M, M, M, ""),
        "4717": (M, M, M, ""),
    },
    "moodle": {
        "4711": ("3", M, "3", "50"),  # matched by name; hw/ex1.ipynb
        "4712": (U, "2", U, "50"),  # work.tar.gz, and an online text the rest may be in
        "4713": (M, "0", M, "0"),  # the later of two copies (wrong) is graded
        "4714": (M, M, U, "0"),
        "4715": (U, "2", U, "50"),  # a hostile zip's refused entries: unreadable
        "4716": (M, M, M, ""),
        "4717": (M, M, M, ""),
        # "Participant" among participants named in full: not blind marking (it names every
        # participant or none) but a participant of that name, nobody on the roster
        "1234570": ("3", M, M, "25"),
    },
}
# roster students without matched work while work nobody is identified by is unmatched (a
# Gradescope submission without metadata), or while the download holds an entry set aside
# that may be work (the class of folders' exercise-07.py at the top, in no student's folder):
# never 0, an empty cell; nor for an exercise that may be in a text entry. Moodle's
# "Participant" folder beside named ones is someone off the roster: Moodle's absent get their 0
WITHHELD = {
    "folders": {"grace"},
    "gradescope": {"4717"},
    "canvas": {"4713"},
    "moodle": {"4712"},
}
BUILDERS = {"folders": folders, "gradescope": gradescope, "canvas": canvas, "moodle": moodle}


def roster_csv(people: list[tuple[str, str, str, str]]) -> str:
    lines = ["id,name,email,sid"] + [",".join(p) for p in people]
    return "\n".join(lines) + "\n"


# every layout grades its class with `grade batch`: the fast tier keeps one (folders), the slow
# tier runs the platforms' downloads too
@pytest.fixture(
    scope="module",
    params=[b if b == "folders" else pytest.param(b, marks=pytest.mark.slow) for b in BUILDERS],
)
def graded(request, tmp_path_factory):
    layout = request.param
    base = tmp_path_factory.mktemp(layout)
    download = BUILDERS[layout](base / "download")
    people = FOLDER_PEOPLE if layout == "folders" else PEOPLE
    write(base / "roster.csv", roster_csv(people))
    write(base / "week-3.yaml", ASSIGNMENT)
    # --out is never inside the download (grade batch refuses it); the folders class holds
    # the output of an earlier run, which is no student
    out = base / "out"
    proc = run_cli(
        "batch",
        str(download),
        "--assignment",
        str(base / "week-3.yaml"),
        "--out",
        str(out),
        "--jobs",
        "2",
        home=COURSE,
        timeout=300,
    )
    return layout, out, proc, people


def table(path: Path) -> list[list[str]]:
    return list(csv.reader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_one_row_per_student_with_the_assignments_columns_and_scores(graded):
    layout, out, proc, people = graded
    assert proc.returncode == 1, proc.stderr  # some work is missing or failed
    rows = table(out / "gradebook.csv")
    header = rows[0]
    assert header[:8] == ["student", "name", "email", "sid", *EXERCISES, "percent"]
    assert rows[1][0] == "(max)" and rows[1][4:7] == ["3", "2", "3"]
    body = {r[0]: r for r in rows[2:]}
    assert len(body) == len(rows) - 2, "a student has two rows"
    got = {key: (r[4], r[5], r[6], r[header.index("final")]) for key, r in body.items()}
    assert got == EXPECTED[layout]
    on_roster = {p[0] for p in people}
    for key, row in body.items():
        problems = row[header.index("problems")]
        assert (key in on_roster) != ("not on the roster" in problems), key
    by_id = {p[0]: p for p in people}
    for key in on_roster:
        assert body[key][1:4] == [by_id[key][1], by_id[key][2], by_id[key][3]]


def test_the_terminal_says_how_the_exercises_were_chosen_and_what_needs_a_look(graded):
    layout, _, proc, _ = graded
    assert "Exercises: exercise-01 ×1, exercise-05 ×2, exercise-07 ×1, from the assignment" in (
        proc.stderr
    )
    assert f"({layout})" in proc.stderr
    assert "Needs a look" in proc.stdout
    assert "Quiet Student" in proc.stdout or "Grace Hall" in proc.stdout  # roster, no work
    assert "missing: " in proc.stdout


def test_canvas_csv_is_canvas_gradebook_import_format(graded):
    _, out, _, people = graded
    rows = table(out / "canvas.csv")
    assert rows[0] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section", "Week 3 (48213)"]
    assert rows[1][0] == "Points Possible" and rows[1][5] == "20"
    students = {r[1]: r for r in rows[2:]}
    assert set(students) == {p[0] for p in people}  # the roster, and no one else
    assert all(len(r) == 6 for r in rows)


def test_moodle_csv_is_keyed_by_email(graded):
    layout, out, _, people = graded
    rows = table(out / "moodle.csv")
    assert rows[0] == ["Email address", "ID number", "Full name", "Week 3", "Feedback"]
    grades = {r[0]: r[3] for r in rows[1:]}
    final = {p[2]: EXPECTED[layout][p[0]][3] for p in people}
    withheld = {p[2] for p in people if p[0] in WITHHELD.get(layout, set())}
    # a withheld grade has no row: Moodle's import reads an empty cell as "no grade" (erasing
    # what it holds), and every written row has its key and its grade
    assert set(grades) == {p[2] for p in people} - withheld
    for email, percent in final.items():  # points of 10; no work: 0 (missing: zero)
        if email not in withheld:
            assert float(grades[email]) == pytest.approx(float(percent or 0) / 10)


def test_each_student_gets_feedback_and_gradescope_results(graded):
    layout, out, _, _ = graded
    for key, expected in EXPECTED[layout].items():
        if expected[:3] == (M, M, M) and expected[3] == "":
            continue  # nothing handed in
        assert (out / "feedback" / f"{key}.html").is_file(), key
        results = json.loads((out / "students" / key / "results.json").read_text())
        assert "execution_time" in results and isinstance(results["tests"], list)
    data = json.loads((out / "gradebook.json").read_text())
    assert data["complete"] is True and data["layout"] == layout
    assert [e["id"] for e in data["exercises"]] == EXERCISES


@pytest.mark.parametrize("graded", ["folders"], indirect=True)
def test_notes_in_the_result_say_what_was_matched(graded):
    _, out, _, _ = graded
    from grader.results import Result

    result = Result.from_json((out / "students" / "bob" / "exercise-05.json").read_text())
    assert result.submission == "bob.tar.gz:Exercise05.py"
    assert "bob.tar.gz:Exercise05.py taken as exercise-05" in result.notes
    carol = Result.from_json((out / "students" / "s003" / "exercise-07.json").read_text())
    assert any("a notebook; its code cells are graded" in n for n in carol.notes)


@pytest.mark.slow
def test_an_assignment_graded_on_a_cluster_gives_the_same_gradebook(tmp_path):
    """`--assignment` and a roster work on a cluster as on one machine: the same rows, scores,
    late penalties and LMS imports (`--cluster local:2`, on this machine)."""
    download = gradescope(tmp_path / "download")
    write(tmp_path / "roster.csv", roster_csv(PEOPLE))
    write(tmp_path / "week-3.yaml", ASSIGNMENT)
    outs = {}
    for how in (["--cluster", "local:2"], ["--jobs", "2"]):
        out = tmp_path / how[0].strip("-")
        proc = run_cli("batch", str(download), "--assignment", str(tmp_path / "week-3.yaml"),
                       "--out", str(out), *how, home=COURSE, timeout=600)  # fmt: skip
        assert proc.returncode == 1, proc.stderr
        outs[how[0]] = out
    cluster, one = outs["--cluster"], outs["--jobs"]
    rows = table(cluster / "gradebook.csv")
    header = rows[0]
    got = {r[0]: (r[4], r[5], r[6], r[header.index("final")]) for r in rows[2:]}
    assert got == EXPECTED["gradescope"]
    for name in ("gradebook.csv", "canvas.csv", "moodle.csv"):
        assert (cluster / name).read_bytes() == (one / name).read_bytes(), name


def test_the_run_ends_with_what_to_do_on_each_platform(graded):
    layout, _, proc, _ = graded
    tail = proc.stdout.rstrip().split("\n\nStill to do on the platforms:\n")
    assert len(tail) == 2, proc.stdout
    lines = [line.removeprefix("  - ") for line in tail[1].splitlines()]
    expected = {
        "canvas": ["Canvas: turn on Canvas's Late Policy"],
        # the files were written by the test, after the due date: no platform's dates
        "moodle": [
            "Moodle: upload moodle-worksheet.csv",
            "Moodle: the late rule was not applied: this download has no submission times",
            "Moodle: the files' dates are not the platform's (every file of the",
        ],
        "gradescope": ["Canvas: canvas.csv already holds the late penalty of 2 student(s)"],
        # alice's files are dated an hour before they were written: dates kept, which may
        # be real, so each is named (all after the due date is no evidence they are not)
        "folders": ["Plain folders: the late rule was not applied: this download has no"],
    }[layout]
    assert len(lines) == len(expected), lines
    for line, start in zip(lines, expected, strict=True):
        assert line.startswith(start), (line, start)


@pytest.mark.parametrize("graded", ["moodle"], indirect=True)
def test_moodle_participant_folder_is_graded_into_the_grading_worksheet(graded):
    _, out, _, _ = graded
    rows = table(out / "moodle-worksheet.csv")
    assert rows[0][:4] == ["Identifier", "Full name", "Email address", "Grade"]
    grades = {r[0]: r[3] for r in rows[1:]}
    assert grades["Participant 1234570"] == "2.5"  # by participant: 25% as points of 10
    assert grades["Participant 1234567"] == "5"  # Jane Doe, by participant too
    assert len(grades) == 6  # every participant of the download, none twice
    data = json.loads((out / "gradebook.json").read_text())
    blind = next(s for s in data["students"] if s["participant"] == "1234570")
    assert blind["roster"] == "unmatched" and blind["final"] == 25
    assert "not on the roster: check who this is" in blind["problems"]
    # blind marking names every participant or none: "Participant" beside named ones is
    # someone off the roster, and Quiet, who handed in nothing, gets the 0 of missing work
    quiet = next(s for s in data["students"] if s["student"] == "4717")
    assert not quiet["withheld"] and quiet["final"] is None
