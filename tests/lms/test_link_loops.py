"""An entry of a class's download that cannot be resolved (a symbolic link that points at
itself, or two that point at each other) is set aside like any other link: each layout's
reader compares its entries resolved, and ``Path.resolve`` raised on a loop, so one such entry
ended the whole ``grade batch`` with a traceback and no student's result."""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.lms.intake import read_submissions
from tests.lms.builders import code, exercises, write

METADATA = """\
submission_1:
  :submitters:
  - :name: Jane Doe
    :sid: '1'
    :email: jane@example.edu
  :created_at: 2026-12-01 15:01:02.123456000 -08:00
"""
DOWNLOADS = {  # one student's work, as each platform names it
    "gradescope": {"submission_metadata.yml": METADATA, "submission_1/exercise-01.py": "jane"},
    "canvas": {"jane_1_2_exercise-01.py": "jane"},
    "moodle": {"Jane Doe_1_assignsubmission_file_/exercise-01.py": "jane"},
    "folders": {"jane/exercise-01.py": "jane"},
}
LOOPS = ["submission_9", "Zed_9_assignsubmission_file_", "zed_9_9_exercise-01.py", "a"]


@pytest.mark.parametrize("layout", DOWNLOADS)
def test_a_link_loop_at_the_top_of_a_download_is_set_aside(tmp_path: Path, layout):
    root = tmp_path / "download"
    for name, text in DOWNLOADS[layout].items():
        write(root / name, text if name.endswith(".yml") else code(text))
    whole = read_submissions(root, staging=tmp_path / "s1", exercises=exercises())
    for name in LOOPS:
        (root / name).symlink_to(root / name)
    (root / "b").symlink_to(root / "a")
    intake = read_submissions(root, staging=tmp_path / "s2", exercises=exercises(), layout=layout)
    assert whole.layout == layout
    keys = [h.key for h in intake.handins]
    assert set(keys) >= {h.key for h in whole.handins}  # nobody lost
    for name in [*LOOPS, "b"]:  # set aside, or a student's unreadable work (Canvas names it)
        said = any(line.startswith(f"{name}: ") for line in intake.stray)
        assert said or name.split("_")[1] in keys, (name, intake.stray)
