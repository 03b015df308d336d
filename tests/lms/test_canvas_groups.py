"""A Canvas group assignment's download holds one member's files per group, named by the
group ("teamred_4711_9001_exercise-01.py": ``ContentZipper`` takes the assignment's
representatives, whose sortable name is the group's). Graded against the class's roster, the
group's other members had no work and were uploaded as 0. A download whose names fit no
roster student's their user id finds is read as such a download: no roster student without
work gets a grade until the instructor looks; where the names fit, nothing changes."""

from __future__ import annotations

import csv
import io
import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms import canvas
from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import ExerciseScore, build_rows
from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write

PEOPLE = [("Doe", "Jane"), ("Roe", "Bob"), ("Poe", "Ann"), ("Loe", "Tim"), ("Moe", "Kim")]


@settings(max_examples=25, deadline=None)
@given(
    sizes=st.lists(st.integers(1, 3), min_size=1, max_size=3),
    groups=st.booleans(),
    extra=st.integers(0, 2),  # roster students in no group that handed in
)
def test_a_group_download_uploads_no_zero_for_the_groups_members(sizes, groups, extra):
    root = Path(tempfile.mkdtemp())
    try:
        count = min(sum(sizes) + extra, len(PEOPLE))
        people = [(4711 + i, *PEOPLE[i]) for i in range(count)]
        lines = ["Student,ID,SIS User ID,SIS Login ID,Section"]
        lines += [f'"{last}, {first}",{uid},S{uid},l{uid},A' for uid, last, first in people]
        write(root / "roster.csv", "\n".join(lines) + "\n")
        write(root / "w.yaml", "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n"
              "roster: roster.csv\n")  # fmt: skip
        handed, at = [], 0
        for g, size in enumerate(sizes):
            members = people[at : at + size]
            at += size
            if not members:
                break
            uid, last, first = members[0]  # the group's representative
            name = f"team{g}" if groups else f"{last}{first}".lower()
            write(root / "dl" / f"{name}_{uid}_{9000 + g}_exercise-01.py", code(str(g)))
            handed.append(uid)
        assignment = load_assignment(root / "w.yaml")
        roster = read_roster(root / "roster.csv")
        intake = read_submissions(root / "dl", staging=root / "st", exercises=exercises())
        full = {"exercise-01": ExerciseScore("exercise-01", "passed", 4, 4)}
        scores = {h.key: full for h in intake.handins}
        rows = build_rows(intake.handins, scores, assignment, roster, lateness=canvas.lateness)
        table = list(csv.reader(io.StringIO(canvas.gradebook_csv(rows, assignment))))
        cells = {int(line[1]): line[5] for line in table[2:]}
        for uid, _, _ in people:
            if uid in handed:
                assert cells[uid] == "100"
            elif groups:
                assert cells[uid] == "", (uid, cells)  # may be in a group: never a 0
            else:
                assert cells[uid] == "0"  # names that fit: nothing handed in
    finally:
        shutil.rmtree(root)
