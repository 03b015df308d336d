"""A path the user types (``--file``, ``--json``, ``--report``, ``--junit``, ``grade batch
DIR``) may be one the file system cannot look at: a name longer than it allows, a link loop, a
file on the way. Each is one usage error, never a traceback."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.catalog import Catalog, project_root
from grader.errors import UsageError
from grader.fileio import check_writable, exists, is_folder, is_regular_file, mode_of, resolved
from grader.serve.submission import find_target, read_file
from grader.workspace import Workspace
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
@given(path=paths)
def test_resolving_a_user_path_never_raises(here, path):
    """``Path.resolve`` raises on a link loop (RuntimeError before Python 3.13) and on a NUL
    byte: every path compared resolved goes through :func:`resolved`."""
    assert resolved(path).is_absolute()


@PLACES
@given(path=paths)
def test_the_file_to_grade_in_a_workspace_is_found_or_one_usage_error(here, path):
    """``grade 1 --file loop.py`` in a workspace resolved the path to see whether it is the
    workspace's own file: "internal error in the grader" for a link loop or a NUL byte."""
    spec = Catalog(project_root()).resolve("1")
    found, workspace = find_target(spec, path, Workspace(here))
    assert found == path and workspace is None


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


# every path argument of grade batch, and how to give it a path; the others stay sound
BATCH_PATHS = {
    "submissions": lambda here, bad: ["batch", bad, "--out", "out", "--exercises", "1"],
    "--out": lambda here, bad: ["batch", "subs", "--out", bad, "--exercises", "1"],
    "--assignment": lambda here, bad: ["batch", "subs", "--out", "out", "--assignment", bad],
    "--course": lambda here, bad: [
        "batch",
        "subs",
        "--out",
        "out",
        "--exercises",
        "1",
        "--course",
        bad,
    ],
    "roster": lambda here, bad: [
        "batch",
        "subs",
        "--out",
        "out",
        "--assignment",
        _assignment(here, roster=bad),
    ],
}


def _assignment(here: Path, roster: str) -> str:
    (here / "week.yaml").write_text(
        f"format_version: 1\nname: week\nexercises: {{exercise-01: 1}}\nroster: {roster}\n"
    )
    return "week.yaml"


@pytest.mark.parametrize("argument", list(BATCH_PATHS))
@pytest.mark.parametrize("bad", ["loop", "loop/x", "x" * 300, "subs/alice/exercise-01.py/x"])
def test_a_bad_batch_path_is_blamed_on_its_own_argument(here, argument, bad):
    """``grade batch loop/x`` said "cannot resolve --out graded: Symlink loop from 'loop/x'":
    the submissions path was blamed on --out. Each path argument's error names that argument
    (or the path it was given), never another argument."""
    (here / "subs" / "alice").mkdir(parents=True)
    (here / "subs" / "alice" / "exercise-01.py").write_text("x = 1\n")
    proc = cli_here(*BATCH_PATHS[argument](here, bad), cwd=here)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1, proc.stderr
    line = errors[0]
    assert "internal error" not in line, proc.stderr
    assert bad[:80] in line or argument in line, line
    for other in ("--out", "--assignment", "--course"):
        if other != argument:
            assert other not in line, line


@pytest.mark.parametrize("name", ["loop", "loop/x", "x" * 300])
def test_grade_with_a_file_that_cannot_be_resolved_in_a_workspace_is_a_usage_error(here, name):
    assert cli_here("init", str(here / "ws"), cwd=here).returncode == 0
    proc = cli_here("1", "--file", str(here / name), "--no-report", cwd=here / "ws")
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr.startswith("Error: ")


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    ident=st.text(max_size=30).filter(lambda t: t.strip() and not t.startswith("-"))
    | st.integers(100, 20_000).map(lambda n: "9" * n)
    | st.sampled_from(["1\n2", "7\r\nx", "\x1b]0;title\x07", "exercise-\udcff"])
)
def test_an_unknown_exercise_id_is_one_line_naming_it(tmp_path, ident):
    """``grade show "1<newline>2"`` split its error over two lines, and an id of 5,000
    characters was echoed whole. The id is shown on the error's one line, inert and cut."""
    for folder in ("exercises", "solutions"):
        (tmp_path / folder).mkdir(exist_ok=True)
    proc = cli_here("show", ident, "--course", str(tmp_path))
    assert proc.returncode == 2, proc.stderr
    error, hint = proc.stderr.rstrip("\n").split("\n")
    assert error.startswith("Error: no exercise '") and len(error) < 120, error
    assert hint.startswith(("Run `grade list`", "Did you mean")), hint
