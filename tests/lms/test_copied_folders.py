"""A class folder holding "alice/" and "alice (1).zip" (a second download, a resubmission the
instructor saved beside the first): the copy was read as another student, "alice (1)", off
the roster, and alice's first version was graded and uploaded. A folder or archive named as a
copy of another's is still read apart (it may be a namesake's), but the other's grade is put
in doubt until the instructor looks, and both say why."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write, zip_bytes

MARKS = ["{} (1)", "{} (2)", "Copy of {}", "{} - Copy", "{} - Copy (2)"]


@settings(max_examples=30, deadline=None)
@given(
    base=st.sampled_from(["alice", "Jane Doe", "Zoë Brontë", "s1234567"]),
    mark=st.sampled_from(MARKS),
    original_zip=st.booleans(),
    copy_zip=st.booleans(),
)
def test_a_copy_named_folder_puts_the_original_s_grade_in_doubt(base, mark, original_zip, copy_zip):
    root = Path(tempfile.mkdtemp())
    try:
        copy = mark.format(base)
        for name, as_zip, tag in ((base, original_zip, "first"), (copy, copy_zip, "second")):
            if as_zip:
                write(root / "sub" / f"{name}.zip", zip_bytes({"exercise-01.py": code(tag)}))
            else:
                write(root / "sub" / name / "exercise-01.py", code(tag))
        write(root / "sub" / "bob" / "exercise-01.py", code("bob"))
        intake = read_submissions(root / "sub", staging=root / "st", exercises=exercises())
        by_name = {h.name: h for h in intake.handins}
        original, copied, bob = by_name[base], by_name[copy], by_name["bob"]
        assert original.files["exercise-01"].doubt  # no grade written until someone looks
        assert any("copy" in p for p in copied.problems)
        assert not bob.files["exercise-01"].doubt and not bob.problems
    finally:
        shutil.rmtree(root)
