"""A file the grader reads back (a workspace's state and last results) or is pointed at (an
assignment file, a course's YAML) may be no regular file at all: a FIFO, a folder, a device, a
link that loops. Each is read as "no such file" or refused in one line, and never waited on:
``read_bytes`` of a FIFO waited for a writer for ever, so ``grade list`` in a workspace whose
``state.json`` was a FIFO never returned, nor did ``grade batch --assignment`` given a pipe."""

from __future__ import annotations

import os
import socket
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog
from grader.errors import SpecError
from grader.fileio import read_regular
from grader.workspace import Workspace
from grader.yamlfields import read_yaml
from tests.conftest import cli_here


def _fifo(path: Path) -> None:
    os.mkfifo(path)


def _folder(path: Path) -> None:
    path.mkdir()


def _device(path: Path) -> None:
    # /dev/null, not /dev/zero: where a reader has no cap (a bug), endless bytes would fill
    # the memory or the disk (grade reset's backup copied /dev/zero until the disk was full)
    path.symlink_to("/dev/null")


def _loop(path: Path) -> None:
    path.symlink_to(path)


def _socket(path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(path))
    sock.close()


KINDS: dict[str, Callable[[Path], None]] = {
    "fifo": _fifo,
    "folder": _folder,
    "device": _device,
    "loop": _loop,
    "socket": _socket,
}
ANY_KIND = settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@ANY_KIND
@given(kind=st.sampled_from(sorted(KINDS)), limit=st.integers(0, 1 << 20))
def test_a_file_that_is_not_regular_is_refused_without_waiting(tmp_path, kind, limit):
    path = Path(tempfile.mkdtemp(dir=tmp_path)) / kind
    KINDS[kind](path)
    with pytest.raises(OSError):
        read_regular(path, limit)


def test_an_endless_device_is_refused_before_a_byte_is_read(tmp_path):
    (tmp_path / "zero").symlink_to("/dev/zero")
    with pytest.raises(OSError, match="not a regular file"):
        read_regular(tmp_path / "zero", 10)


@given(data=st.binary(max_size=300), limit=st.integers(0, 400))
def test_a_regular_file_is_read_up_to_one_byte_past_its_limit(tmp_path_factory, data, limit):
    path = tmp_path_factory.mktemp("r") / "f"
    path.write_bytes(data)
    assert read_regular(path, limit) == data[: limit + 1]


@ANY_KIND
@given(kind=st.sampled_from(sorted(KINDS)), place=st.sampled_from(["state", "result"]))
def test_a_workspace_whose_stored_files_are_not_files_is_read_as_fresh(tmp_path, kind, place):
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    (root / ".grade" / "results").mkdir(parents=True)
    workspace = Workspace(root)
    target = workspace.state_path if place == "state" else workspace.result_path("exercise-01")
    KINDS[kind](target)
    assert workspace.load_state()["exercises"] == {}
    assert workspace.last_result("exercise-01") is None


@pytest.mark.parametrize("kind", ["fifo"])
def test_grade_list_in_a_workspace_whose_state_is_a_fifo_answers(tmp_path, kind):
    assert cli_here("init", str(tmp_path / "ws"), cwd=tmp_path).returncode == 0
    state = tmp_path / "ws" / ".grade" / "state.json"
    state.unlink(missing_ok=True)
    KINDS[kind](state)
    proc = cli_here("list", cwd=tmp_path / "ws")
    assert proc.returncode == 0, proc.stderr
    assert "not started" in proc.stdout


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_yaml_file_that_is_not_a_file_is_one_spec_error(tmp_path, kind):
    path = tmp_path / "week.yaml"
    KINDS[kind](path)
    with pytest.raises(SpecError) as caught:
        read_yaml(path)
    assert "\n" not in caught.value.message and "week.yaml" in caught.value.message


def _outside(path: Path) -> None:
    """A link to a file outside the workspace (the starter must never be written there)."""
    outside = path.parent.parent / f"outside-{path.name}"
    outside.write_text("kept\n")
    path.symlink_to(outside)


LEARNER_KINDS = {**KINDS, "outside": _outside, "dangling": lambda p: p.symlink_to(p.parent / "no")}


@pytest.mark.parametrize("kind", sorted(LEARNER_KINDS))
def test_grade_reset_of_a_learner_file_that_is_not_a_file_is_one_usage_error(tmp_path, kind):
    """``grade reset 7`` where exercise-07.py was a folder, a FIFO or a link that loops ended
    with "internal error in the grader" (copying it for the backup); a link had the starter
    written through it, over the file it named. Each is one usage error, and nothing it
    names is touched."""
    assert cli_here("init", str(tmp_path / "ws"), cwd=tmp_path).returncode == 0
    target = tmp_path / "ws" / "exercise-07.py"
    target.unlink()
    LEARNER_KINDS[kind](target)
    proc = cli_here("reset", "7", cwd=tmp_path / "ws")
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("Error: ") and "not a regular file" in proc.stderr
    assert not (tmp_path / "ws" / ".grade" / "backups").exists()
    if kind == "outside":
        assert (tmp_path / "outside-exercise-07.py").read_text() == "kept\n"


def test_grade_init_never_writes_a_starter_through_a_link(tmp_path):
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "exercise-07.py").symlink_to(tmp_path / "elsewhere.py")
    assert cli_here("init", str(tmp_path / "ws"), cwd=tmp_path).returncode == 0
    assert not (tmp_path / "elsewhere.py").exists()


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_grade_watch_looks_at_a_file_that_is_not_regular_without_waiting(tmp_path, kind):
    """``grade watch`` reads the file at every check to tell a save: a FIFO there waited for
    a writer for ever. What is not a regular file is no file to grade yet."""
    from grader.cli.learner import _stamp

    KINDS[kind](tmp_path / "exercise-07.py")
    assert _stamp(tmp_path / "exercise-07.py") is None
    (tmp_path / "plain.py").write_text("x = 1\n")
    assert _stamp(tmp_path / "plain.py") is not None


def test_a_diagnoses_file_that_is_a_fifo_is_a_spec_error_without_waiting(tmp_path):
    """A course's diagnoses.yaml made a FIFO: the catalogue's own read (it hashes the bytes to
    parse each content once) waited for a writer for ever, where read_yaml refuses it."""
    fifo = tmp_path / "diagnoses.yaml"
    os.mkfifo(fifo)
    with pytest.raises(SpecError) as caught:
        DiagnosisCatalog.load(fifo)
    assert "diagnoses.yaml" in str(caught.value)
