"""A course named by the user (GRADER_HOME, GRADER_COURSE, --course) is any bytes: a folder or
one clear usage error, never a traceback."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import cli_here

names = st.one_of(
    st.binary(min_size=1, max_size=40).filter(lambda b: b"\0" not in b).map(os.fsdecode),
    # past the file system's limits: a part longer than 255 bytes, a path past PATH_MAX
    st.integers(256, 5000).map(lambda n: "x" * n),
    st.integers(20, 40).map(lambda n: "/".join(["y" * 250] * n)),
    st.sampled_from(["/etc/passwd/x", "/proc/self/fd/0/x", "~nosuchuser/x"]),
)


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=names, how=st.sampled_from(["GRADER_HOME", "GRADER_COURSE", "--course"]))
def test_a_course_path_that_names_no_folder_is_one_usage_error(tmp_path, value, how):
    """A name too long for the file system (ENAMETOOLONG) raised out of ``is_dir`` and ended
    ``grade list`` with "internal error in the grader" and a traceback."""
    if how == "--course":
        proc = cli_here("list", "--course", value, cwd=tmp_path)
    else:
        proc = cli_here("list", cwd=tmp_path, env_extra={how: value})
    assert "Traceback" not in proc.stderr
    if proc.returncode != 0:
        assert proc.returncode == 2, proc.stderr
        error = proc.stderr.strip().splitlines()[0]
        assert error.startswith("Error: ")
        assert "no such folder" in error or "an empty path" in error, error
        assert len(error) < 400
        error.encode("utf-8")


@pytest.mark.parametrize("how", ["GRADER_HOME", "--course"])
def test_a_symbolic_link_loop_is_no_folder(tmp_path, how):
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    value = str(tmp_path / "a")
    args = ("list", "--course", value) if how == "--course" else ("list",)
    proc = cli_here(*args, cwd=tmp_path, env_extra={} if how == "--course" else {how: value})
    assert proc.returncode == 2 and "no such folder" in proc.stderr, proc.stderr
