"""The local scheduler's loop (grader.engine.scheduler.run_jobs), with stand-in workers."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

import grader.engine.scheduler as scheduler
from grader.catalog import Catalog
from grader.engine.scheduler import Job, Running
from tests.conftest import PROBE_HOME, ctrl_c_in_a_finaliser


class _Workers:
    """A launcher whose workers are processes that write nothing until killed (a class's
    endless loops): what the loop then does is all the scheduler's."""

    def __init__(self, limit_s: float, logs: Path) -> None:
        self.limit_s = limit_s
        self.logs = logs
        self.started: list[Running] = []

    def start(self, spec, jobs) -> Running:
        read_fd, write_fd = os.pipe()
        proc = subprocess.Popen(["sleep", "600"], stdout=write_fd, close_fds=True)
        os.close(write_fd)
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
