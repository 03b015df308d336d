"""Shared fixtures of the grader's own tests."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from grader.results import Result

# Hypothesis draws 100 examples a property, afresh in every run (CI included), so each run
# explores a little further. HYPOTHESIS_PROFILE=hunt draws ten times as many, to look for what
# the default rarely draws (run it over the property tests after changing what they cover).
# No profile has a deadline: a time per example is a wall-clock bound, which a loaded machine
# (the suite's own gradings beside it, torch's first call of a kind) breaks at random; what a
# property claims is what its examples show, and pytest-timeout turns a hang into a failure.
settings.register_profile("default", deadline=None)
settings.register_profile("hunt", max_examples=1000, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"

# Every grading in the suite runs in the process that asked for it, as it did before the warm
# server existed, and no test leaves a server behind; the server's own tests
# (tests/test_server.py) turn it on, with a runtime folder and an idle timeout of their own.
os.environ["GRADE_NO_SERVER"] = "1"
PROBE_HOME = FIXTURES / "home"
SUBMISSIONS = FIXTURES / "submissions"


class GradingService:
    """Grades through a real warm server (``python -m grader.serve``, in the foreground, in a
    private runtime folder of its own), spoken to with the shipped client and protocol
    (grader.serve.client), as ``grade ID`` and the notebook speak to it.

    The pytest process must stay free to run tensor work of its own, which a process that
    forks learner children must not do; so tests grade through a server in a separate process.
    """

    def __init__(self, home: Path | None = None, env: dict[str, str] | None = None) -> None:
        import tempfile
        import threading

        from grader.catalog import Catalog, project_root
        from grader.serve import client
        from grader.serve.runtime import Place

        env = dict(os.environ, **(env or {}))
        if home is not None:
            env["GRADER_HOME"] = str(home)
        env.pop("GRADE_NO_SERVER", None)
        self._runtime = tempfile.TemporaryDirectory(prefix="grading-service-")
        env["XDG_RUNTIME_DIR"] = self._runtime.name
        env["GRADE_SERVER_IDLE"] = "86400"  # it ends with the session, not when idle
        self.catalog = Catalog((home or project_root()).resolve())
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "grader.serve"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        # the server's log (stderr) is read as it comes: its "ready" line is the event waited
        # on, and a log that nobody read would block the server once the pipe filled up
        self.log: list[str] = []
        ready = threading.Event()

        def drain() -> None:
            assert self.proc.stderr is not None
            for line in self.proc.stderr:
                self.log.append(line)
                if "ready: " in line:
                    ready.set()
            ready.set()  # the server ended: nothing more will come

        threading.Thread(target=drain, daemon=True).start()
        ready.wait()
        ready_lines = [line for line in self.log if "ready: " in line]
        if not ready_lines:
            self.proc.wait(timeout=60)
            self._runtime.cleanup()
            raise RuntimeError("the grading server did not start:\n" + "".join(self.log))
        # where it listens, as it says (its name depends on the server's own environment)
        socket_path = Path(ready_lines[0].rsplit(" socket ", 1)[1].strip())
        self.place = Place(socket_path.parent, socket_path.stem)
        assert self.place.socket == socket_path
        assert socket_path.is_relative_to(self._runtime.name)
        status = client.status(self.place)
        self.isolation = status.isolation
        # the uids of this server's learner children (empty: they keep the grader's uid)
        self.learner_uids = range(status.learner_uids_start, status.learner_uids_stop)

    def grade(
        self,
        exercise: str,
        path: Path,
        devices=("cpu", "cuda"),
        seed: int = 20261129,
        lang: str = "en",
    ) -> Result:
        from grader.engine.api import GradeRequest
        from grader.serve import client

        request = GradeRequest(
            exercise=self.catalog.resolve(exercise).id,
            source=Path(path).read_bytes(),
            filename=str(path),
            devices=tuple(devices),
            seed=seed,
            lang=lang,
        )
        try:
            return client.grade(self.place, request, 600.0)
        except client.Unavailable as exc:
            raise RuntimeError(f"the grading server failed: {exc.reason}") from None

    def close(self) -> None:
        from grader.serve import client

        with contextlib.suppress(client.Unavailable):
            client.stop(self.place)
        self.proc.wait(timeout=60)
        self._runtime.cleanup()


@pytest.fixture(scope="session")
def probe_service():
    """Grades the engine-probe exercise (exercise-90, short time limits)."""
    service = GradingService(PROBE_HOME)
    yield service
    service.close()


@pytest.fixture(scope="session")
def curriculum_service():
    """Grades the real exercises."""
    service = GradingService()
    yield service
    service.close()


def run_fresh(
    code: str,
    timeout: float = 180,
    *,
    args: tuple[str, ...] = (),
    env: dict[str, str] | None = None,
    cwd: Path = ROOT,
) -> str:
    """Run ``code`` in a fresh interpreter (from the checkout unless ``cwd`` says otherwise)
    and return its stdout (it must succeed): for what replaces modules of torch's or sets
    process-wide state, which this process must keep as they are."""
    proc = subprocess.run(
        [sys.executable, "-c", code, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def watch_cli(*args: str, env: dict[str, str], cwd: Path, **popen: Any) -> subprocess.Popen:
    """``grade watch ARGS`` started in the background, as a learner starts it (stop it with
    SIGINT, as Ctrl-C does)."""
    return subprocess.Popen(
        [sys.executable, "-m", "grader", "watch", *args], env=env, cwd=cwd, **popen
    )


@contextlib.contextmanager
def watching(
    *args: str, env: dict[str, str], cwd: Path
) -> Iterator[tuple[subprocess.Popen, Path, Path]]:
    """``grade watch ARGS`` with its stdout and stderr in files of ``cwd`` (read them while it
    runs); on leaving, it gets SIGINT, as Ctrl-C sends, and is waited for."""
    out, err = cwd / "watch-out.txt", cwd / "watch-err.txt"
    with out.open("w") as stdout, err.open("w") as stderr:
        proc = watch_cli(*args, env=env, cwd=cwd, stdout=stdout, stderr=stderr)
        try:
            yield proc, out, err
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=30)


def wait_ended(pids: Iterable[int]) -> None:
    """Wait until every process of ``pids`` has ended, on the kernel's word: a pidfd becomes
    readable when its process ends (a zombie has ended). No bound of its own: a process that
    never ends holds the test until the suite's per-test timeout (pyproject.toml) fails it."""
    fds = []
    try:
        for pid in pids:
            try:
                fds.append(os.pidfd_open(pid))
            except ProcessLookupError:  # already gone (and reaped)
                continue
        while fds:
            ready, _, _ = select.select(fds, [], [])
            for fd in ready:
                fds.remove(fd)
                os.close(fd)
    finally:
        for fd in fds:
            os.close(fd)


def live_parents() -> dict[int, int]:
    """Every live process and its parent. Zombies do not count: a zombie the fork server has
    yet to reap has ended, runs nothing and holds no memory."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if stat[0] != "Z":
                parents[int(entry)] = int(stat[1])
    return parents


def descendants(pid: int) -> list[int]:
    """The live processes below ``pid``."""
    parents = live_parents()
    found, frontier = [], [pid]
    while frontier:
        current = frontier.pop()
        children = [p for p, parent in parents.items() if parent == current]
        found += children
        frontier += children
    return found


def run_cli(
    *args: str,
    cwd: Path | None = None,
    home: Path | None = None,
    timeout: float = 180,
    env_extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    env = dict(os.environ, NO_COLOR="1", GRADE_LANG="en")
    if home is not None:
        env["GRADER_HOME"] = str(home)
    if env_extra:
        env.update(env_extra)
    return subprocess.run(
        [sys.executable, "-m", "grader", *args],
        cwd=cwd or ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def cli_here(
    *args: str,
    cwd: Path | None = None,
    home: Path | None = None,
    env_extra: dict[str, str] | None = None,
) -> subprocess.CompletedProcess:
    """``grade ARGS`` run in this process, as click's CliRunner runs a command: the same
    environment, working folder and exit code as :func:`run_cli`, with stdout and stderr
    captured; for commands that grade nothing (a grading forks workers and learner children,
    which belong in a process of their own).

    ``grader.cli.main`` is what the ``grade`` console script runs, less the interpreter's exit
    (tests/test_cli.py proves the script itself in a subprocess). The environment, the working
    folder and the standard streams are restored afterwards: ``--course`` sets
    ``GRADER_COURSE`` for the processes the command starts, and must not leak into other tests.
    """
    from grader import cli

    environ = dict(os.environ)
    old_cwd = Path.cwd()
    streams = sys.stdout, sys.stderr
    out = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", write_through=True)
    err = io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", write_through=True)
    os.environ.update(NO_COLOR="1", GRADE_LANG="en")
    if home is not None:
        os.environ["GRADER_HOME"] = str(home)
    os.environ.update(env_extra or {})
    try:
        os.chdir(cwd or ROOT)
        sys.stdout, sys.stderr = out, err
        code = cli.main(list(args))
    finally:
        sys.stdout, sys.stderr = streams
        os.chdir(old_cwd)
        os.environ.clear()
        os.environ.update(environ)
    text = [s.buffer.getvalue().decode("utf-8", "replace") for s in (out, err)]  # type: ignore[attr-defined]
    return subprocess.CompletedProcess(["grade", *args], int(code), text[0], text[1])


@dataclasses.dataclass(frozen=True)
class Validated:
    """A course copied to a temporary folder and put through ``grade validate``."""

    root: Path
    proc: subprocess.CompletedProcess
    junit: Path


@pytest.fixture(scope="session")
def validated_puzzles(tmp_path_factory) -> Validated:
    """The puzzle course (tests/fixtures/course-puzzles) with one scaffolded exercise more,
    through ``grade validate --verbose --junit``, run in its folder, once for the session:
    tests/test_curriculum.py checks the counts and the report, tests/test_course.py what the
    verbose output shows a course author. Nothing may change the folder."""
    from grader.authoring.scaffold import scaffold
    from grader.catalog import Catalog

    root = tmp_path_factory.mktemp("validated") / "puzzles"
    shutil.copytree(FIXTURES / "course-puzzles", root)
    scaffold(Catalog(root), "exercise-23", "extra")
    junit = root.parent / "validate.xml"
    proc = run_cli("validate", "--verbose", "--junit", str(junit), cwd=root, timeout=900)
    return Validated(root, proc, junit)


def stable(result: Result) -> dict:
    """A result without what differs between two honest runs (timings, the submission's path),
    so that a submission graded in a batch can be compared with the same one graded alone."""
    data = result.to_dict()
    for key in ("duration_s", "submission"):
        data.pop(key)
    for test in data["tests"]:
        test.pop("duration_s")
    return data


class _Finaliser:
    """An object whose finaliser is where a Ctrl-C lands."""

    def __del__(self) -> None:
        signal.raise_signal(signal.SIGINT)  # its handler runs here, inside the finaliser


def bare_result(**fields: Any) -> Result:
    """A Result with no tests, for code that only passes Results on (schedulers, progress,
    exports); ``fields`` replace its defaults."""
    from grader.results import Environment, Status

    base = Result(
        exercise_id="exercise-90",
        exercise_title="Engine probe",
        submission="x",
        status=Status.PASSED,
        score=0.0,
        max_score=0.0,
        tests=(),
        environment=Environment("3.11", "2.13", "linux", False),
        seed=1,
    )
    return dataclasses.replace(base, **fields)


def ctrl_c_in_a_finaliser() -> None:
    """A Ctrl-C that Python drops: its KeyboardInterrupt is raised in a ``__del__`` (as in a
    gc callback of Dask's), printed as "Exception ignored", and goes no further."""
    _Finaliser()  # freed at once


# `python -c DROPPING_DRIVER ARGS...` is `grade ARGS...`, in which a SIGUSR1 makes a Ctrl-C
# land in a finaliser run by the main thread (as Dask's client's gc callback is), where Python
# drops its KeyboardInterrupt ("Exception ignored").
DROPPING_DRIVER = """
import signal
class Finaliser:
    def __del__(self):
        signal.raise_signal(signal.SIGINT)
signal.signal(signal.SIGUSR1, lambda signum, frame: Finaliser())
from grader.cli import run
run()
"""
