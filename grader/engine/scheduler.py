"""Scheduling gradings over trusted workers: groups, parallelism, deadlines.

Gradings of the same exercise, devices, seed and language share a worker (one pytest session)
in groups of up to ``MAX_GROUP``; at most ``parallel`` workers run at once, and those grading
CUDA alone count against ``gpu_parallel`` too. A worker streams typed records
(:mod:`grader.engine.records`); each submission is finalised as soon as the worker says it is
complete, so a batch keeps every result even if a worker is killed later. Every worker has a
deadline (its group's total time limits plus slack) after which it is killed.
"""

from __future__ import annotations

import contextlib
import math
import os
import select
import signal
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from grader.engine import handback
from grader.engine.records import (
    EnvRecord,
    GraderErrorRecord,
    RecordError,
    ReviewRecord,
    SubmissionDone,
    TestRecord,
    parse_line,
)
from grader.engine.scoring import attributable
from grader.interrupts import watch
from grader.notebooks import CellMap
from grader.results import Result
from grader.sandbox.procs import reap
from grader.spec import ExerciseSpec

# Submissions per worker: a pytest session and its start (about 60 ms of plugins, collection
# and fixtures) are shared by a group; a class of 30 students is graded by 6 workers rather
# than 12 (0.4 core-s less of 10), and a group is still small enough to share out.
MAX_GROUP = 16
# A submission graded this long is far past what this curriculum's tests take (about 0.1 s):
# its code is most likely spending its time limits, test after test (up to a minute). While a
# worker is idle, the submissions queued behind it in its group go to that worker rather than
# wait (grader.engine.handback).
STRAGGLER_S = 1.0
# With no straggler, a worker hands the later part of its group to an idle one only when that
# part outweighs a worker's start (about two submissions' grading).
BALANCE_MIN = 4


@dataclass(frozen=True)
class Job:
    """One grading pass of one submission, as the scheduler runs it."""

    spec: ExerciseSpec
    path: Path  # the staged submission file
    filename: str  # how the result names it
    selected: tuple[str, ...]
    seed: int
    lang: str
    tag: Any = None  # the caller's label, handed back with the result
    cells: CellMap | None = None  # a notebook's: the lines its messages name


@dataclass
class Running:
    """A worker in flight: a group of submissions of one exercise, what the worker reported so
    far, and the group's deadline."""

    spec: ExerciseSpec
    jobs: list[Job]  # in grading order; a job's key is its index, as a string
    pid: int
    fd: int
    log_path: str
    deadline: float
    started: float
    records: dict[str, list[TestRecord]] = field(default_factory=dict)
    done: dict[str, float] = field(default_factory=dict)  # key -> when it was reported complete
    taken: set[str] = field(default_factory=set)  # keys whose Result was handed out
    env: EnvRecord | None = None
    reviews: dict[str, ReviewRecord] = field(default_factory=dict)  # key -> its static review
    grader_errors: list[str] = field(default_factory=list)
    killed_for_time: bool = False
    finished: bool = False
    handback_fd: int | None = None  # where to tell the worker what was handed on (handback)
    last: int | None = None  # the last index the worker is still to grade; None: to the end
    handed_on: set[str] = field(default_factory=set)  # keys given to another worker
    _buffer: bytes = b""

    @property
    def selected(self) -> tuple[str, ...]:
        return self.jobs[0].selected

    def fileno(self) -> int:
        return self.fd

    def read(self) -> bool:
        """Read what the worker wrote; False once it has closed its end."""
        try:
            chunk = os.read(self.fd, 1 << 16)
        except BlockingIOError:
            return True
        if not chunk:
            self._parse(self._buffer + b"\n")
            self._buffer = b""
            return False
        data = self._buffer + chunk
        lines = data.split(b"\n")
        self._buffer = lines.pop()
        self._parse(b"\n".join(lines))
        return True

    def _parse(self, data: bytes) -> None:
        for line in data.splitlines():
            if not line.strip():
                continue
            try:
                record = parse_line(line)
            except RecordError as exc:
                self.grader_errors.append(f"the worker wrote a malformed record ({exc})")
                continue
            if isinstance(record, EnvRecord):
                self.env = record
            elif isinstance(record, TestRecord):
                self.records.setdefault(record.submission, []).append(record)
            elif isinstance(record, ReviewRecord):
                self.reviews[record.submission] = record
            elif isinstance(record, SubmissionDone):
                self.done[record.submission] = time.monotonic()
            elif isinstance(record, GraderErrorRecord):
                self.grader_errors.append(record.message)

    @property
    def final(self) -> int:
        """The index of the last submission the worker is still to grade."""
        return len(self.jobs) - 1 if self.last is None else self.last

    def current(self) -> int | None:
        """The index of the submission the worker grades now (its first one not reported
        complete), or None when it has none left."""
        return next((n for n in range(self.final + 1) if str(n) not in self.done), None)

    def unstarted(self) -> list[int]:
        """The indices the worker is still to grade after its current one."""
        current = self.current()
        if current is None or self.finished or self.killed_for_time:
            return []
        return [n for n in range(current + 1, self.final + 1) if str(n) not in self.done]

    def current_since(self) -> float:
        """When the worker began its current submission: when it reported the one before it
        complete, or when it started."""
        return max([self.started, *self.done.values()])

    def hand_on(self, last: int) -> list[int]:
        """Take from the worker every submission after index ``last`` that it has not begun:
        it is told to stop after ``last`` (grader.engine.handback), and none of its results
        for them is taken. Returns their indices."""
        taken = [n for n in self.unstarted() if n > last]
        if not taken or self.handback_fd is None:
            return []
        handback.send(self.handback_fd, last)
        self.last = last
        self.handed_on.update(str(n) for n in taken)
        return taken

    def duration(self, key: str) -> float:
        """How long this submission's grading took (its share of the worker's time)."""
        end = self.done.get(key, time.monotonic())
        begin = max([self.started] + [t for k, t in self.done.items() if t < end and k != key])
        return round(end - begin, 3)

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)

    def discard(self) -> tuple[int | None, str]:
        """Reap the worker and release what it held; its exit status and its log."""
        status = self.reap()
        with contextlib.suppress(OSError):
            os.close(self.fd)
        if self.handback_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.handback_fd)
        return status, _read_and_remove(self.log_path)

    def reap(self) -> int | None:
        """The worker's exit status; one that closed its pipe but does not exit (stopped,
        hung) is killed after a few seconds."""
        return reap(self.pid, timeout=5.0)


class Launcher(Protocol):
    """What the scheduler needs of an engine: start a worker, turn what it reported into
    Results."""

    def start(self, spec: ExerciseSpec, jobs: list[Job]) -> Running: ...

    def completed(self, running: Running) -> list[tuple[str, Result]]: ...

    def finish(self, running: Running) -> list[tuple[str, Result]]: ...


def run_jobs(
    launcher: Launcher,
    jobs: Sequence[Job],
    *,
    parallel: int,
    gpu_parallel: int | None = None,
    on_result: Callable[[Job, Result], None] | None = None,
) -> list[tuple[Job, Result]]:
    """Grade every job, ``parallel`` workers at a time; results come back in job order.

    ``on_result(job, result)`` is called as each one completes. On KeyboardInterrupt the
    workers in flight are killed; every result already handed to ``on_result`` stands.
    """
    parallel = max(1, parallel)
    groups: dict[tuple[Any, ...], list[int]] = {}
    for index, job in enumerate(jobs):
        groups.setdefault((job.spec.id, job.selected, job.seed, job.lang), []).append(index)
    # as many workers as can run at once for each kind of job, up to MAX_GROUP submissions each
    size = max(1, min(MAX_GROUP, math.ceil(len(jobs) / (parallel * max(1, len(groups))))))
    pending = [
        members[i : i + size] for members in groups.values() for i in range(0, len(members), size)
    ]
    running: list[tuple[list[int], Running]] = []
    done: dict[int, Result] = {}

    def deliver(members: list[int], run: Running, results: list[tuple[str, Result]]) -> None:
        for key, result in results:
            if key in run.handed_on:
                continue  # graded by the worker it was handed to
            index = members[int(key)]
            if len(members) > 1 and not attributable(result, complete=key in run.done):
                # Whatever cut this grading short may have been a classmate's doing (a worker
                # killed for the group's time, a sandbox another child broke): grade it again,
                # alone, where only its own doing can touch it.
                pending.insert(0, [index])
                continue
            done[index] = result
            if on_result is not None:
                on_result(jobs[index], result)

    def gpu_free() -> bool:
        busy = sum(1 for _, r in running if on_gpu(r.selected))
        return gpu_parallel is None or busy < gpu_parallel

    def start_pending() -> None:
        for members in list(pending):
            if len(running) >= parallel:
                break
            first = jobs[members[0]]
            if on_gpu(first.selected) and not gpu_free():
                continue
            pending.remove(members)
            run = launcher.start(first.spec, [jobs[i] for i in members])
            running.append((members, run))

    with watch() as ctrl_c:
        try:
            while pending or running:
                ctrl_c.check()  # a Ctrl-C that a finaliser swallowed (grader.interrupts)
                start_pending()
                wait = 1.0
                if not pending and len(running) < parallel:
                    handed, wait = hand_on(
                        running,
                        idle=parallel - len(running),
                        now=time.monotonic(),
                        may_take=lambda run: not on_gpu(run.selected) or gpu_free(),
                    )
                    pending.extend(handed)
                    start_pending()
                poll([r for _, r in running], timeout=wait)
                for members, run in list(running):
                    deliver(members, run, launcher.completed(run))
                    if run.finished:
                        running.remove((members, run))
                        deliver(members, run, launcher.finish(run))
        except BaseException:
            for _, run in running:
                run.kill()
            for _, run in running:
                run.discard()
            raise
        return [(job, done[i]) for i, job in enumerate(jobs)]


def hand_on(
    running: Sequence[tuple[list[int], Running]],
    *,
    idle: int,
    now: float,
    may_take: Callable[[Running], bool],
) -> tuple[list[list[int]], float]:
    """Groups of submissions taken from a worker in flight for ``idle`` workers to grade, and
    how long to wait before asking again (until a worker's current submission would count as
    a straggler).

    From a worker whose current submission has run ``STRAGGLER_S``, everything queued behind it
    is taken; from any other, the later part of what it has left, when that is at least
    ``BALANCE_MIN``, so that it and the idle workers end together. One worker gives per turn,
    the one that gives most; what it gives is shared out among the idle workers.
    """
    best: tuple[int, list[int], Running, int] | None = None
    wake = 1.0
    for members, run in running:
        rest = run.unstarted()
        if not rest or not may_take(run):
            continue
        since = now - run.current_since()
        if since >= STRAGGLER_S:
            keep = 0
        else:
            wake = min(wake, STRAGGLER_S - since)
            if len(rest) < BALANCE_MIN:
                continue
            keep = len(rest) // (idle + 1)
        if best is None or len(rest) - keep > best[0]:
            last = rest[keep - 1] if keep else rest[0] - 1  # the current submission's index
            best = (len(rest) - keep, members, run, last)
    if best is None:
        return [], wake
    _, members, run, last = best
    taken = run.hand_on(last)
    if not taken:
        return [], wake
    size = math.ceil(len(taken) / min(idle, len(taken)))
    groups = [[members[n] for n in taken[i : i + size]] for i in range(0, len(taken), size)]
    return groups, wake


def on_gpu(selected: tuple[str, ...]) -> bool:
    """Whether a worker grades CUDA cases alone (a CUDA pass), counted against the GPU's share
    of workers."""
    return selected == ("cuda",)


def poll(runs: list[Running], timeout: float) -> None:
    """Read what the workers have written (waiting at most ``timeout`` for anything to come),
    kill those past their deadline, and mark those that have ended."""
    live = [r for r in runs if not r.finished]
    if not live:
        return
    now = time.monotonic()
    for run in live:
        if now >= run.deadline and not run.killed_for_time:
            run.killed_for_time = True
            run.kill()
    wait = min([timeout] + [r.deadline - now for r in live if not r.killed_for_time])
    readable, _, _ = select.select(live, [], [], max(wait, 0.0))
    for run in readable:
        while True:  # drain: a finished worker's last records may span several reads
            if not run.read():
                run.finished = True
                break
            ready, _, _ = select.select([run], [], [], 0)
            if not ready:
                break


def usable_cores() -> int:
    """The cores this process may run on (its affinity: a container's or taskset's limit)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _read_and_remove(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()[-20000:]
    except OSError:
        return ""
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)
