"""A later version handed in apart: "4711/exercise-01.py" in a folder and, in a second hand-in
of the same student, "4711.zip" holding only "exercise-01_v2.py" (or "_final", ...). The two
hand-ins were merged into one student, the look-alike became a note, and the folder's file was
graded and its grade uploaded: the student's final version may be the one nobody graded. Work
of an exercise the grader could not read, handed in apart from the graded file and not known
to be older by the platform's times, now withholds the row until someone looks."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import build_rows, grade_cell
from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, tar_bytes, write, zip_bytes
from tests.lms.test_platforms import grade

SPEC = "format_version: 1\nname: w\nexercises: {exercise-01: 1}\nroster: roster.csv\n"
MONDAY = 1_764_590_400  # 2025-12-01 12:00 UTC, in whole seconds


def _rows(tmp: Path, root: Path) -> list:
    write(tmp / "roster.csv", "id,name,email\n4711,Jane Doe,jane@x.edu\n")
    assignment = load_assignment(write(tmp / "w.yaml", SPEC))
    intake = read_submissions(root, staging=tmp / "st", exercises=exercises())
    handins = intake.handins
    return build_rows(handins, grade(handins), assignment, read_roster(tmp / "roster.csv"))


@settings(max_examples=12, deadline=None)
@given(
    suffix=st.sampled_from(["_v2", "_final", "_2026-12-02", "-fixed"]),
    container=st.sampled_from(["zip", "tar.gz"]),
    gap=st.sampled_from([-86400, 86400]),  # the archive's file date against the folder's
)
def test_a_look_alike_handed_in_apart_withholds_the_grade(suffix, container, gap):
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "dl"
        write(root / "4711" / "exercise-01.py", code("monday"), MONDAY)
        members = {f"exercise-01{suffix}.py": code("tuesday")}
        data = zip_bytes(members) if container == "zip" else tar_bytes(members)
        write(root / f"4711.{container}", data, MONDAY + gap)
        (jane,) = _rows(tmp, root)
    assert jane.roster == "matched" and jane.final_percent == 100.0  # the folder's file, graded
    # file dates are no submission times: whichever way they point, nobody knows which is final
    assert jane.withheld and "may be the student's final version" in jane.withheld
    assert grade_cell(jane, 100, "zero") == ""


def test_two_hand_ins_with_graded_files_are_not_held_back():
    """The rule is about work that could not be read: two readable versions are ranked as
    before (the later graded, the choice noted for the instructor), and the grade is written."""
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        root = tmp / "dl"
        write(root / "4711" / "exercise-01.py", code("monday"), MONDAY)
        write(root / "4711.zip", zip_bytes({"exercise-01.py": code("tuesday")}), MONDAY + 60)
        (jane,) = _rows(tmp, root)
    assert not jane.withheld and grade_cell(jane, 100, "zero") == "100"
