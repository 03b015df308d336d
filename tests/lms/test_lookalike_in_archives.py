"""A later version under a look-alike name inside an archive: "exercise-01.py" handed in on
Monday, and on Tuesday "later.zip" holding "exercise-01_final.py". The same file handed in
beside the graded one put its grade in doubt (withheld until someone looks); inside the
archive it had no time at all (an archive's members have the archive's), so it could not, and
the instructor read only "...; ignored" under a grade that went out. It now has the archive's
time and order, as every member has: a later archive puts the grade in doubt and says its
look-alike member was not read; an earlier one, or the same archive, changes nothing."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, tar_bytes, write, zip_bytes

MONDAY = 1_764_590_400
ARCHIVES = {
    "later.zip": lambda members: zip_bytes(members),
    "later.tar.gz": lambda members: tar_bytes(members),
    "later.tar": lambda members: tar_bytes(members, gz=False),
}


@settings(max_examples=30, deadline=None)
@given(
    archive=st.sampled_from(sorted(ARCHIVES)),
    suffix=st.sampled_from(["_v2", "_final", "-fixed", " (1) final"]),
    gap=st.sampled_from([-86400, -60, 60, 86400]),
    inner=st.sampled_from(["", "hw/"]),
)
def test_a_later_archive_with_a_look_alike_puts_the_grade_in_doubt(archive, suffix, gap, inner):
    root = Path(tempfile.mkdtemp())
    try:
        student = root / "dl" / "4711"
        write(student / "exercise-01.py", code("monday"), mtime=MONDAY)
        members = {f"{inner}exercise-01{suffix}.py": code("tuesday")}
        write(student / archive, ARCHIVES[archive](members), mtime=MONDAY + gap)
        (handin,) = read_submissions(
            root / "dl", staging=root / "st", exercises=exercises()
        ).handins
        graded = handin.files["exercise-01"]
        assert graded.shown == "4711/exercise-01.py"
        if gap > 0:
            assert graded.doubt, handin.problems
            assert "not read" in graded.doubt and archive in graded.doubt
            assert any(p.startswith("exercise-01: ") and "not read" in p for p in handin.problems)
        else:
            assert not graded.doubt, graded.doubt
    finally:
        shutil.rmtree(root)
