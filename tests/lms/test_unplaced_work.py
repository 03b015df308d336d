"""Work intake sets aside is never graded 0 behind the instructor's back.

A platform sets aside what it did not name (a folder or zip of work collected by mail, named by
the student's id, beside a Canvas download) and what it refuses (one Moodle participant id
under two names, after a name change and two downloads unzipped into one folder). Those
entries may be a roster student's work: while the download holds any, a roster student with
no matched work gets no grade in the upload files (an empty cell, no moodle.csv row), and
their row says why. An entry that cannot be work (a README, an empty folder) changes nothing.
"""

from __future__ import annotations

import csv
import io
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.lms import canvas, moodle
from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import build_rows
from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write, zip_bytes
from tests.lms.test_platforms import ASSIGNMENT, grade

ROSTER = (
    "id,name,email,sid\n4711,Jane Doe,jane@example.edu,1001\n"
    "4712,Bob Smith,bob@example.edu,1002\n4715,Dora Zip,dora@example.edu,1005\n"
)
WITHHELD = "no grade written until you look"

# Entries a Canvas download may hold beside its own, and whether each may be someone's work.
STRAY = {
    "4715": (lambda p: write(p / "exercise-01.py", code("dora")), True),
    "4715.zip": (lambda p: write(p, zip_bytes({"exercise-01.py": code("dora")})), True),
    "exercise-05.py": (lambda p: write(p, code("whose?")), True),
    "a link": (lambda p: p.symlink_to(p.parent), True),
    "README.txt": (lambda p: write(p, "instructions"), False),
    "empty folder": (lambda p: write(p / "notes.txt", "nothing"), False),
}


def _rows(root: Path, tmp: Path, layout: str | None = None):
    write(tmp / "roster.csv", ROSTER)
    assignment = load_assignment(write(tmp / "week-3.yaml", ASSIGNMENT))
    intake = read_submissions(root, staging=tmp / "staging", exercises=exercises(), layout=layout)
    rows = build_rows(
        intake.handins,
        grade(intake.handins),
        assignment,
        read_roster(tmp / "roster.csv"),
        unplaced=intake.unplaced,
    )
    return intake, rows, assignment


def _canvas_cells(rows, assignment) -> dict[str, str]:
    lines = list(csv.reader(io.StringIO(canvas.gradebook_csv(rows, assignment))))
    return {line[0]: line[5] for line in lines[2:]}


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kinds=st.sets(st.sampled_from(sorted(STRAY)), max_size=3))
def test_an_absent_student_gets_no_zero_while_work_lies_unplaced(tmp_path_factory, kinds):
    tmp = tmp_path_factory.mktemp("canvas")
    root = tmp / "download"
    write(root / "doejane_4711_100_exercise-01.py", code("jane"))
    write(root / "smithbob_4712_101_exercise-01.py", code("bob"))
    for kind in kinds:
        make, _ = STRAY[kind]
        make(root / kind)
    intake, rows, assignment = _rows(root, tmp, layout="canvas")
    work = any(STRAY[k][1] for k in kinds)
    assert bool(intake.unplaced) == work, intake.unplaced
    dora = next(r for r in rows if r.student.email == "dora@example.edu")
    cells = _canvas_cells(rows, assignment)
    if work:
        assert WITHHELD in dora.withheld and any(WITHHELD in p for p in dora.problems)
        assert cells["Dora Zip"] == ""
        assert "dora@example.edu" not in moodle.grades_csv(rows, assignment)
    else:
        assert not dora.withheld and cells["Dora Zip"] == "0"
    # those whose work was found are graded as before, whatever else lies there
    assert (
        cells["Jane Doe"] == "50"
        and not next(r for r in rows if r.student.email == "jane@example.edu").withheld
    )


def test_a_participant_under_two_names_gets_no_zero(tmp_path):
    root = tmp_path / "moodle"
    write(root / "Jane Doe_101_assignsubmission_file_" / "exercise-01.py", code("jane"))
    write(root / "Dora Zip_107_assignsubmission_file_" / "exercise-01.py", code("dora"))
    write(root / "Dora Zap_107_assignsubmission_file_" / "exercise-01.py", code("dora 2"))
    intake, rows, assignment = _rows(root, tmp_path)
    assert intake.layout == "moodle" and len(intake.unplaced) == 2
    dora = next(r for r in rows if r.student.email == "dora@example.edu")
    assert WITHHELD in dora.withheld
    assert "participant 107 appears under several names" in dora.withheld
    assert "dora@example.edu" not in moodle.grades_csv(rows, assignment)
