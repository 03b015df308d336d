"""The local scheduler's loop (grader.engine.scheduler.run_jobs), with stand-in workers."""

from __future__ import annotations

import dataclasses
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import grader.engine.scheduler as scheduler
from grader.catalog import Catalog
from grader.engine.scheduler import Job, Running
from grader.results import Result
from tests.conftest import PROBE_HOME, ROOT, bare_result, ctrl_c_in_a_finaliser


class _Workers:
    """A launcher whose workers are processes that write nothing until killed (a class's
    endless loops): what the loop then does is all the scheduler's."""

    def __init__(self, limit_s: float, logs: Path) -> None:
        self.limit_s = limit_s
        self.logs = logs
        self.started: list[Running] = []

    def start(self, spec, jobs) -> Running:
        return self._launch(spec, jobs, ["sleep", "600"])

    def _launch(self, spec, jobs, argv: list[str], stdin: int | None = None) -> Running:
        """A process writing to the records pipe of a new Running (``stdin``: its input)."""
        read_fd, write_fd = os.pipe()
        proc = subprocess.Popen(argv, stdin=stdin, stdout=write_fd, cwd=ROOT, close_fds=True)
        os.close(write_fd)
        os.set_blocking(read_fd, False)
        now = time.monotonic()
        log = self.logs / f"worker-{len(self.started)}.log"  # the scheduler removes it
        log.touch()
        run = Running(spec, jobs, proc.pid, read_fd, str(log), now + self.limit_s, now)
        self.started.append(run)
        return run

    def completed(self, running):
        return []

    def finish(self, running):
        running.discard()
        return []


def test_a_ctrl_c_a_finaliser_swallows_stops_the_local_loop(monkeypatch, tmp_path: Path):
    """A Ctrl-C dropped by Python (it landed in a ``__del__`` or a gc callback) still stops
    the loop at its next turn: the workers in flight are killed and reaped, and no other
    starts."""
    spec = Catalog(PROBE_HOME).resolve("exercise-90")
    jobs = [
        Job(spec, tmp_path / "exercise-90.py", f"s{n}/exercise-90.py", ("cpu",), n, "en")
        for n in range(4)  # a seed each: a worker each
    ]
    # past the limit, a loop that missed the Ctrl-C would start the next worker
    workers = _Workers(limit_s=1.0, logs=tmp_path)
    real_poll = scheduler.poll
    calls = []

    def poll(runs, timeout):
        calls.append(len(workers.started))
        if len(calls) == 1:
            ctrl_c_in_a_finaliser()
        real_poll(runs, timeout)

    monkeypatch.setattr(scheduler, "poll", poll)
    with pytest.raises(KeyboardInterrupt):
        scheduler.run_jobs(workers, jobs, parallel=2)
    assert len(workers.started) == 2 and len(calls) == 1
    for run in workers.started:
        with pytest.raises(ChildProcessError):
            os.waitpid(run.pid, os.WNOHANG)  # killed and reaped


# -- handing on what a worker has not started (grader.engine.handback) ----------------------


def _group(tmp_path: Path, n: int) -> list[Job]:
    spec = Catalog(PROBE_HOME).resolve("exercise-90")
    path = tmp_path / "exercise-90.py"
    return [Job(spec, path, f"s{i}/exercise-90.py", ("cpu",), 1, "en", tag=i) for i in range(n)]


class _InFlight:
    """A worker in flight as the scheduler sees it, with nothing behind it but its pipes: what
    it is told arrives at ``told``."""

    def __init__(self, jobs: list[Job], started: float, done: dict[str, float], log: Path) -> None:
        records_read, self._records_write = os.pipe()
        self.told, handback_write = os.pipe()
        os.set_blocking(handback_write, False)
        self.run = Running(jobs[0].spec, jobs, -1, records_read, str(log), started + 600, started)
        self.run.handback_fd = handback_write
        self.run.done.update(done)

    def close(self) -> None:
        assert self.run.handback_fd is not None
        for fd in (self.run.fd, self._records_write, self.told, self.run.handback_fd):
            os.close(fd)  # never Running.discard: it removes log_path


@pytest.fixture
def in_flight(tmp_path):
    made: list[_InFlight] = []

    def make(n: int, *, started: float, done: dict[str, float] | None = None) -> _InFlight:
        log = tmp_path / f"worker-{len(made)}.log"
        made.append(_InFlight(_group(tmp_path, n), started, done or {}, log))
        return made[-1]

    yield make
    for worker in made:
        worker.close()


def _told(worker: _InFlight) -> int | None:
    from grader.engine.handback import Handback

    return Handback(worker.told).last()


def test_everything_queued_behind_a_straggler_goes_to_the_idle_workers(in_flight):
    worker = in_flight(6, started=100.0, done={"0": 100.2})  # on submission 1 since 100.2
    members = [10, 11, 12, 13, 14, 15]
    now = 100.2 + scheduler.STRAGGLER_S
    groups, _ = scheduler.hand_on(
        [(members, worker.run)], idle=2, now=now, may_take=lambda run: True
    )
    assert groups == [[12, 13], [14, 15]]  # shared out among the idle workers, in order
    assert worker.run.handed_on == {"2", "3", "4", "5"}
    assert _told(worker) == 1  # it finishes the one it is on, and stops
    # asked again, it has nothing more to give
    assert (
        scheduler.hand_on([(members, worker.run)], idle=2, now=now, may_take=lambda run: True)[0]
        == []
    )


def test_a_worker_on_time_keeps_a_short_queue_and_says_when_to_look_again(in_flight):
    worker = in_flight(4, started=100.0)
    groups, wake = scheduler.hand_on(
        [([0, 1, 2, 3], worker.run)], idle=1, now=100.3, may_take=lambda run: True
    )
    assert groups == [] and worker.run.handed_on == set() and _told(worker) is None
    assert wake == pytest.approx(scheduler.STRAGGLER_S - 0.3)


def test_a_worker_on_time_with_a_long_queue_shares_its_later_part(in_flight):
    worker = in_flight(8, started=100.0)  # on submission 0; 1..7 queued
    groups, _ = scheduler.hand_on(
        [(list(range(8)), worker.run)], idle=1, now=100.1, may_take=lambda run: True
    )
    assert groups == [[4, 5, 6, 7]]  # it keeps 1..3: both end about together
    assert _told(worker) == 3


def test_only_workers_whose_work_may_move_give(in_flight):
    worker = in_flight(5, started=100.0)
    now = 100.0 + scheduler.STRAGGLER_S
    refused = scheduler.hand_on(
        [([0, 1, 2, 3, 4], worker.run)], idle=1, now=now, may_take=lambda run: False
    )  # e.g. a CUDA pass, GPU full
    assert refused[0] == [] and _told(worker) is None
    worker.run.killed_for_time = True
    assert (
        scheduler.hand_on(
            [([0, 1, 2, 3, 4], worker.run)], idle=1, now=now, may_take=lambda run: True
        )[0]
        == []
    )


def test_the_worker_that_gives_most_gives(in_flight):
    short = in_flight(3, started=100.0)
    long = in_flight(6, started=100.0)
    now = 100.0 + scheduler.STRAGGLER_S
    running = [([0, 1, 2], short.run), ([3, 4, 5, 6, 7, 8], long.run)]
    groups, _ = scheduler.hand_on(running, idle=1, now=now, may_take=lambda run: True)
    assert groups == [[4, 5, 6, 7, 8]]
    assert _told(short) is None and _told(long) == 0


_FAKE_WORKER = """
import os, sys
from grader.engine.handback import Handback
from grader.engine.records import SubmissionDone, to_line

n, heed = int(sys.argv[1]), sys.argv[2] == "heed"
handback = Handback(0)
for key in range(n):
    os.write(1, to_line(SubmissionDone(str(key))).encode())
    if heed and handback.stops_before(key + 1):
        break
"""

_GRADED = bare_result()


class _Graders(_Workers):
    """A launcher whose workers report their submissions complete one after another and read
    what they are handed back, as the real worker's plugin does (``deaf`` ones ignore it, as a
    worker does that passed a boundary just before the message came). A worker whose first
    job is ``stuck`` is stopped before it reports anything, until the test lets it go. Each
    result names the worker that made it."""

    def __init__(self, stuck: set[int], heed: bool, logs: Path) -> None:
        super().__init__(limit_s=120, logs=logs)
        self.stuck, self.heed = stuck, heed
        self.stopped: set[int] = set()

    def start(self, spec, jobs) -> Running:
        told, handback_fd = os.pipe()
        argv = [sys.executable, "-c", _FAKE_WORKER, str(len(jobs)), "heed" if self.heed else "deaf"]
        run = self._launch(spec, jobs, argv, stdin=told)
        os.close(told)
        os.set_blocking(handback_fd, False)
        run.handback_fd = handback_fd
        if jobs[0].tag in self.stuck:
            os.kill(run.pid, signal.SIGSTOP)
            self.stopped.add(run.pid)
        return run

    def let_go(self, runs: list[Running]) -> None:
        for run in runs:
            if run.pid in self.stopped:
                self.stopped.discard(run.pid)
                os.kill(run.pid, signal.SIGCONT)

    def _results(self, running: Running, keys: list[str]) -> list[tuple[str, Result]]:
        out = []
        for key in keys:
            if key not in running.taken:  # handed-on keys too: the scheduler must drop them
                running.taken.add(key)
                made_by = f"{running.pid}:{running.jobs[int(key)].tag}"
                out.append((key, dataclasses.replace(_GRADED, submission=made_by)))
        return out

    def completed(self, running):
        return self._results(
            running, [k for k in map(str, range(len(running.jobs))) if k in running.done]
        )

    def finish(self, running):
        running.discard()
        return self._results(running, [str(n) for n in range(len(running.jobs))])


def _grade(monkeypatch, tmp_path, jobs, *, parallel, stuck, heed):
    """run_jobs over stand-in workers, every worker a straggler at once; a stopped worker is
    let go only when nothing else is running (so a loop that hands nothing on still ends)."""
    graders = _Graders(stuck, heed, tmp_path)
    real_poll = scheduler.poll

    def poll(runs, timeout):
        live = [r for r in runs if not r.finished]
        if live and all(r.pid in graders.stopped for r in live):
            graders.let_go(live)
        real_poll(runs, timeout)

    monkeypatch.setattr(scheduler, "STRAGGLER_S", 0.0)
    monkeypatch.setattr(scheduler, "poll", poll)
    delivered: list[tuple[int, str]] = []
    out = scheduler.run_jobs(
        graders,
        jobs,
        parallel=parallel,
        on_result=lambda j, r: delivered.append((j.tag, r.submission)),
    )
    return graders, delivered, out


def _check(graders, delivered, out, jobs):
    assert sorted(tag for tag, _ in delivered) == list(range(len(jobs)))  # each exactly once
    assert [job.tag for job, _ in out] == list(range(len(jobs)))  # in job order
    handed = {(run.pid, run.jobs[int(k)].tag) for run in graders.started for k in run.handed_on}
    for tag, made_by in delivered:
        pid, made_for = made_by.split(":")
        assert int(made_for) == tag
        assert (int(pid), tag) not in handed  # never the result of a worker it was taken from


def test_the_submissions_behind_a_stuck_one_are_graded_by_another_worker(monkeypatch, tmp_path):
    jobs = _group(tmp_path, 4)  # two groups: [0, 1] and [2, 3]
    graders, delivered, out = _grade(monkeypatch, tmp_path, jobs, parallel=2, stuck={0}, heed=True)
    _check(graders, delivered, out, jobs)
    first = graders.started[0]
    assert [j.tag for j in first.jobs] == [0, 1] and first.handed_on == {"1"}
    assert [tag for tag, _ in delivered][-1] == 0  # the others did not wait for it
    assert set(first.done) == {"0"}  # told at its boundary, it stopped there
    thief = next(r for r in graders.started if [j.tag for j in r.jobs] == [1])
    assert dict(delivered)[1].startswith(f"{thief.pid}:")


@settings(
    max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    seeds=st.lists(st.sampled_from([1, 2]), min_size=1, max_size=9),
    parallel=st.integers(1, 3),
    stuck=st.sets(st.integers(0, 8), max_size=4),
    heed=st.booleans(),
)
def test_handing_on_never_loses_or_doubles_a_result(
    monkeypatch, tmp_path, seeds, parallel, stuck, heed
):
    """Whatever is stuck and wherever workers go idle, every job gets one result, from the
    worker that held it last; a worker that graded a handed-on submission anyway (it passed its
    boundary before the message came) has that result dropped."""
    spec = Catalog(PROBE_HOME).resolve("exercise-90")
    path = tmp_path / "exercise-90.py"
    jobs = [
        Job(spec, path, f"s{i}.py", ("cpu",), seed, "en", tag=i) for i, seed in enumerate(seeds)
    ]
    with monkeypatch.context() as patched:
        graders, delivered, out = _grade(
            patched, tmp_path, jobs, parallel=parallel, stuck=stuck, heed=heed
        )
    _check(graders, delivered, out, jobs)
