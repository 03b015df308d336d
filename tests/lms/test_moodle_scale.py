"""A Moodle assignment graded on a scale ("Fail, Pass"; "Not yet, Competent, Excellent")
takes no points: Moodle's importers find a scale grade by its item's text. ``moodle.csv`` and
the grading worksheet wrote "85": the worksheet skipped every grade, the gradebook import
refused the file, and with its "Verbose scales" off read 85 as the scale's 85th item, the top
one. ``moodle.scale`` names the scale's items and the percentage each takes; the grade is the
item, spelled as the scale has it, or no grade at all."""

from __future__ import annotations

import csv
import io
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.errors import SpecError
from grader.lms import moodle
from grader.lms.assignment import load_assignment
from grader.lms.grades import GradeRow, Student
from tests.lms.builders import write

SCALES = [
    {"Fail": 0, "Pass": 50},
    {"Not yet competent": 0, "Competent": 60, "Excellent": 90},
    {"F": 0, "E": 40, "D": 50, "C": 60, "B": 70, "A": 85},
    {"不及格": 0, "及格": 60, "优秀": 90},
]


def _assignment(folder: Path, moodle_yaml: str, missing: str = "zero"):
    spec = (
        f"format_version: 1\nname: w\nexercises: {{exercise-01: 1}}\nmissing: {missing}\n"
        f"moodle: {moodle_yaml}\n"
    )
    return load_assignment(write(folder / "w.yaml", spec))


def _flow(scale: dict) -> str:
    return "{" + ", ".join(f"'{k}': {v}" for k, v in scale.items()) + "}"


@settings(max_examples=60, deadline=None)
@given(
    scale=st.sampled_from(SCALES),
    percents=st.lists(
        st.one_of(st.none(), st.floats(0, 100, allow_nan=False)), min_size=1, max_size=6
    ),
    withheld=st.lists(st.booleans(), min_size=6, max_size=6),
    missing=st.sampled_from(["zero", "blank"]),
)
def test_a_scale_assignment_gets_the_scale_s_items_never_points(scale, percents, withheld, missing):
    with tempfile.TemporaryDirectory() as tmp:
        assignment = _assignment(Path(tmp), f"{{item: Week 3, scale: {_flow(scale)}}}", missing)
    rows = [
        GradeRow(
            student=Student(
                f"k{i}", f"Student {i}", f"s{i}@x.edu", sid=f"S{i}", participant=str(i + 1)
            ),
            scores=(),
            weighted_percent=p,
            final_percent=p,
            withheld="needs a look" if withheld[i] else "",
        )
        for i, p in enumerate(percents)
    ]
    items = list(scale)
    imported = {
        line[0]: line[3] for line in csv.reader(io.StringIO(moodle.grades_csv(rows, assignment)))
    }
    sheet = {
        line[0]: line[3] for line in csv.reader(io.StringIO(moodle.worksheet_csv(rows, assignment)))
    }
    for i, (p, held) in enumerate(zip(percents, withheld[: len(percents)], strict=True)):
        if held or (p is None and missing == "blank"):
            expected = ""
        else:
            earned = [item for item, lowest in scale.items() if (p or 0.0) >= lowest]
            expected = earned[-1]
        assert imported.get(f"s{i}@x.edu", "") == expected
        assert sheet[f"Participant {i + 1}"] == expected
        for written in (imported.get(f"s{i}@x.edu", ""), sheet[f"Participant {i + 1}"]):
            assert written == "" or written in items  # an item of the scale, never a number
    advice = " ".join(moodle.advice(rows, assignment, read=True))
    assert "scale" in advice and "Verbose scales" in advice


@pytest.mark.parametrize(
    ("moodle_yaml", "field"),
    [
        ("{scale: {Fail: 0, Pass: 50}, points: 10}", "moodle.points"),  # a scale has no points
        ("{scale: {Pass: 0}}", "moodle.scale"),  # one item is no scale
        ("{scale: {'Fail, really': 0, Pass: 50}}", "moodle.scale"),  # Moodle parts items at ","
        ("{scale: {Fail: 10, Pass: 50}}", "moodle.scale.Fail"),  # 0% must earn an item
        ("{scale: {Fail: 0, Pass: 50, Merit: 50}}", "moodle.scale.Merit"),  # not increasing
        ("{scale: {Fail: 0, Pass: 150}}", "moodle.scale.Pass"),
        ("{scale: {Fail: 0, Pass: yes}}", "moodle.scale.Pass"),
        ("{scale: {' Fail': 0, Pass: 50}}", "moodle.scale.Fail"),  # Moodle trims its items
        ("{scale: [Fail, Pass]}", "moodle.scale"),
    ],
)
def test_a_scale_moodle_would_not_read_as_meant_is_refused(moodle_yaml, field, tmp_path):
    with pytest.raises(SpecError) as caught:
        _assignment(tmp_path, moodle_yaml)
    assert field in str(caught.value)


def test_points_assignments_are_as_they_were(tmp_path):
    assignment = _assignment(tmp_path, "{item: Week 3, points: 20}")
    row = GradeRow(Student("k", "Jane", "j@x.edu", participant="1"), (), 85.0, final_percent=85.0)
    assert list(csv.reader(io.StringIO(moodle.grades_csv([row], assignment))))[1][3] == "17"
    assert list(csv.reader(io.StringIO(moodle.worksheet_csv([row], assignment))))[1][3:5] == [
        "17",
        "20",
    ]
