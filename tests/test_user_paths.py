"""A path the user types (``--file``, ``--json``, ``--report``, ``--junit``, ``grade batch
DIR``) may be one the file system cannot look at: a name longer than it allows, a link loop, a
file on the way. Each is one usage error, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.errors import UsageError
from grader.fileio import check_writable, exists, is_folder, is_regular_file, mode_of
from grader.serve.submission import read_file
from tests.conftest import cli_here

paths = st.one_of(
    st.binary(min_size=1, max_size=40).filter(lambda b: b"\0" not in b).map(os.fsdecode),
    st.integers(256, 3000).map(lambda n: "x" * n),  # a part past NAME_MAX
    st.integers(20, 40).map(lambda n: "/".join(["y" * 250] * n)),  # past PATH_MAX
    st.sampled_from(["/etc/passwd/x", "loop", "loop/x", "x\0y"]),
).map(Path)
PLACES = settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.fixture
def here(tmp_path, monkeypatch):
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@PLACES
@given(path=paths)
def test_looking_at_a_user_path_never_raises(here, path):
    assert (mode_of(path) is None) == (not exists(path))
    assert not (is_folder(path) and is_regular_file(path))


@PLACES
@given(path=paths, suffix=st.sampled_from(["", ".json", ".html", ".xml", "/r.json"]))
def test_an_output_path_is_writable_or_one_usage_error(here, path, suffix):
    """``--json`` under a name too long for the file system raised ENAMETOOLONG out of
    ``is_dir``: "internal error in the grader" after the grading."""
    try:
        check_writable(Path(str(path) + suffix))
    except UsageError:
        pass


@PLACES
@given(path=paths)
def test_a_submission_path_is_read_or_one_usage_error(here, path):
    try:
        read_file(path)
    except UsageError:
        pass


@pytest.mark.parametrize("name", ["x" * 300, "loop/x", "/etc/passwd/x"])
def test_grade_batch_on_a_folder_that_cannot_be_looked_at_is_a_usage_error(here, name):
    proc = cli_here("batch", name, "--out", str(here / "out"), cwd=here)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "\nError: " in "\n" + proc.stderr
