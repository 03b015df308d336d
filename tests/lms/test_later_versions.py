"""A later version under a name that is not the exercise's own: "exercise-01.py" handed in on
Monday and "exercise-01_v2.py" (or "_final", "_2026-12-02") on Tuesday. The Monday file was
graded, the Tuesday one "ignored", and the grade went out: the student's final version may be
the one nobody graded. The row is now withheld until someone looks; an earlier such file (an
old copy kept beside the final one) changes nothing."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import build_rows, grade_cell
from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write
from tests.lms.test_platforms import grade

SPEC = "format_version: 1\nname: w\nexercises: {exercise-01: 1}\nroster: roster.csv\n"
SUFFIXES = ["_v2", "_final", "_2026-12-02", "-fixed", "_new"]
MONDAY = 1_764_590_400  # 2025-12-01 12:00 UTC, in whole seconds


@settings(max_examples=30, deadline=None)
@given(
    layout=st.sampled_from(["folders", "moodle", "canvas"]),
    suffix=st.sampled_from(SUFFIXES),
    gap=st.sampled_from([-86400, -60, 60, 86400]),  # the look-alike's time against the graded
)
def test_a_later_file_named_like_the_exercise_withholds_the_grade(layout, suffix, gap):
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "dl"
        if layout == "folders":
            graded, other = (
                root / "4711" / "exercise-01.py",
                root / "4711" / f"exercise-01{suffix}.py",
            )
        elif layout == "moodle":
            folder = root / "Jane Doe_901_assignsubmission_file_"
            graded, other = folder / "exercise-01.py", folder / f"exercise-01{suffix}.py"
        else:  # Canvas: no times, the file ids say which came later
            first, second = (88001, 88002) if gap > 0 else (88002, 88001)
            graded = root / f"doejane_4711_{first}_exercise-01.py"
            other = root / f"doejane_4711_{second}_exercise-01{suffix}.py"
        write(graded, code("monday"), MONDAY)
        write(other, code("tuesday"), MONDAY + gap)
        write(Path(tmp) / "roster.csv", "id,name,email\n4711,Jane Doe,jane@x.edu\n")
        assignment = load_assignment(write(Path(tmp) / "w.yaml", SPEC))
        intake = read_submissions(root, staging=Path(tmp) / "st", exercises=exercises())
        assert intake.layout == layout
        rows = build_rows(intake.handins, grade(intake.handins), assignment,
                          read_roster(Path(tmp) / "roster.csv"))  # fmt: skip
    (jane,) = rows
    assert jane.roster == "matched" and jane.final_percent == 100.0  # the Monday file, graded
    if gap > 0:
        assert jane.withheld and "may be the student's final version" in jane.withheld
        assert grade_cell(jane, 100, "zero") == ""
    else:
        assert not jane.withheld and grade_cell(jane, 100, "zero") == "100"
