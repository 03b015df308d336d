"""A Gradescope group submission is every member's, and each member's record is their own.
Intake gave the members one file record between them: when one member's other submission
put that file in doubt (a look-alike handed in later), every member of the group was withheld
with a message about that one member's other submission, which the others never made. And a
student whose handins carried the same note (the group's, read once per member) was told it
once per handin."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.assignment import load_assignment, read_roster
from grader.lms.grades import ExerciseScore, build_rows, grade_cell
from grader.lms.handin import Handin
from grader.lms.intake import _combine, read_submissions
from tests.lms.builders import code, exercises, write, zip_bytes

METADATA = """\
submission_1:
  :submitters:
{group}
  :created_at: 2026-12-01 10:00:00.000000000 -08:00
submission_2:
  :submitters:
  - :name: Ann Lee
    :sid: '1001'
    :email: 1001@example.edu
  :created_at: 2026-12-01 11:00:00.000000000 -08:00
"""
MEMBERS = [("Ann Lee", "1001"), ("Pat Roe", "1002"), ("Kim Poe", "1003"), ("Lee Noe", "1004")]


@settings(max_examples=15, deadline=None)
@given(
    size=st.integers(2, 4),
    suffix=st.sampled_from(["_v2", "_final", "-fixed"]),
    archived=st.booleans(),
)
def test_one_members_other_submission_is_not_the_groups_reason(size, suffix, archived):
    root = Path(tempfile.mkdtemp())
    try:
        group = "\n".join(
            f"  - :name: {name}\n    :sid: '{sid}'\n    :email: {sid}@example.edu"
            for name, sid in MEMBERS[:size]
        )
        export = root / "export"
        write(export / "submission_metadata.yml", METADATA.format(group=group))
        write(export / "submission_1" / "exercise-01.py", code("the group's"))
        later = f"exercise-01{suffix}.py"
        if archived:
            write(export / "submission_2" / "later.zip", zip_bytes({later: code("ann's")}))
        else:
            write(export / "submission_2" / later, code("ann's"))
        intake = read_submissions(export, staging=root / "st", exercises=exercises())
        assert intake.layout == "gradescope"
        by_sid = {h.sid: h for h in intake.handins}
        ann = by_sid["1001"]
        assert ann.files["exercise-01"].doubt  # her own later look-alike may be her final one
        for _, sid in MEMBERS[1:size]:
            other = by_sid[sid]
            # the others handed in the group's work only: nothing of Ann's other submission
            assert not other.files["exercise-01"].doubt, other.files["exercise-01"].doubt
            assert not any("submission_2" in p for p in other.problems), other.problems
        write(root / "w.yaml", "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n")
        full = {"exercise-01": ExerciseScore("exercise-01", "passed", 4, 4)}
        rows = build_rows(intake.handins, {h.key: full for h in intake.handins},
                          load_assignment(root / "w.yaml"))  # fmt: skip
        for row in rows:
            if row.student.sid == "1001":
                assert row.withheld and "submission_2" in row.withheld
            else:
                assert not row.withheld and row.final_percent == 100.0, row.withheld
        # each note once, however many handins carried it
        for handin in intake.handins:
            assert len(handin.notes) == len(set(handin.notes)), handin.notes
            assert len(handin.problems) == len(set(handin.problems)), handin.problems
    finally:
        shutil.rmtree(root)


LINES = st.sampled_from(
    [
        "later.zip:exercise-01_v2.py: looks like exercise-01; ignored",
        "over intake's per-student cap (archive entries): needs a look",
        "a group submission, with Pat Roe",
    ]
)


@given(lines=st.lists(st.tuples(st.lists(LINES, max_size=3), st.lists(LINES, max_size=3)),
                      min_size=2, max_size=4))  # fmt: skip
def test_a_merged_student_is_told_each_line_once(lines):
    """Handins of one student that carry the same line (a group's, copied to each member;
    a cap met in each) gave the merged student that line once per handin."""
    handins = [
        Handin(
            "1001",
            key_kind="sid",
            sid="1001",
            origin=f"submission_{i}/",
            notes=list(notes),
            problems=list(problems),
        )
        for i, (notes, problems) in enumerate(lines)
    ]
    merged = _combine(handins)
    for said, given_lines in ((merged.notes, [n for n, _ in lines]),
                              (merged.problems, [p for _, p in lines])):  # fmt: skip
        assert len(said) == len(set(said)), said
        assert {line for group in given_lines for line in group} <= set(said)  # none lost


def test_a_submitter_listed_twice_is_one_member_told_once(tmp_path):
    """Gradescope's metadata listing one submitter twice made two handins of one student,
    merged: every line of the submission twice, "a group submission, with" herself, and
    "handed in 2 times (submission_1/, submission_1/)"."""
    export = tmp_path / "export"
    person = "  - :name: Ann Lee\n    :sid: '1001'\n    :email: 1001@example.edu"
    write(export / "submission_metadata.yml",
          f"submission_1:\n  :submitters:\n{person}\n{person}\n"
          "  :created_at: 2026-12-01 10:00:00.000000000 -08:00\n")  # fmt: skip
    write(export / "submission_1" / "exercise-01.py", code("ann"))
    write(export / "submission_1" / "later.zip", zip_bytes({"exercise-01_v2.py": code("x")}))
    (ann,) = read_submissions(export, staging=tmp_path / "st", exercises=exercises()).handins
    assert len(ann.problems) == len(set(ann.problems)), ann.problems
    assert not any("group submission" in n or "handed in 2 times" in n for n in ann.notes)


@settings(max_examples=10, deadline=None)
@given(size=st.integers(2, 4))
def test_a_submission_whose_folder_is_missing_gives_its_members_no_zero(size):
    """Gradescope's metadata lists a (group) submission whose folder the export lacks (an
    unzip cut short): its members, on the roster, were uploaded as 0, "missing", though they
    handed in. Its exercises are now work intake could not read: no grade until you look."""
    root = Path(tempfile.mkdtemp())
    try:
        group = "\n".join(
            f"  - :name: {name}\n    :sid: '{sid}'\n    :email: {sid}@example.edu"
            for name, sid in MEMBERS[:size]
        )
        export = root / "export"
        write(export / "submission_metadata.yml", METADATA.format(group=group))
        write(export / "submission_2" / "exercise-01.py", code("ann's"))  # submission_1 lacks
        intake = read_submissions(export, staging=root / "st", exercises=exercises())
        write(root / "roster.csv", "id,name,email\n" + "".join(
            f"{sid},{name},{sid}@example.edu\n" for name, sid in MEMBERS[:size]))  # fmt: skip
        write(root / "w.yaml", "format_version: 1\nname: w\nexercises: {exercise-01: 1}\n")
        full = {"exercise-01": ExerciseScore("exercise-01", "passed", 4, 4)}
        rows = build_rows(
            intake.handins, {h.key: full for h in intake.handins if h.files},
            load_assignment(root / "w.yaml"), read_roster(root / "roster.csv"),
        )  # fmt: skip
        for row in rows:
            if row.student.sid == "1001":
                continue  # Ann's own later submission is graded
            assert grade_cell(row, 100, "zero") == "", (row.roster, row.scores)
            assert "not in the export" in row.withheld, row.withheld
    finally:
        shutil.rmtree(root)
