"""The warm grading process of one Dask worker slot: ``python -m grader.cluster.slot``.

Started by the worker plugin (:mod:`grader.cluster.plugin`) with ``subprocess`` (fork+exec: a
clean, single-threaded interpreter, never a fork of the multi-threaded Dask worker) and a
cleaned environment. Inside, the grader is exactly the one-machine grader:
:class:`grader.engine.LocalEngine` (imports once, freezes, starts its fork server, detects the
isolation tier), with one grading at a time.

It speaks the line protocol of :mod:`grader.cluster.protocol` on its stdin and stdout: a
``hello`` with its fingerprint once it is warm, then for each ``grade`` chunk one ``result``
(or ``error``) line per job as each completes, and ``done``. Anything else it prints goes to
stderr. It exits when its stdin closes, also in the middle of a chunk (checked after every
result), and when its parent changes: the parent-death signal is not used, since it fires when
the parent *thread* that started the process exits.

    python -m grader.cluster.slot --exercise exercise-07 [--hide PATH] [--private PATH]

``--hide``: folders learner children must not see (a batch's submissions and outputs, when the
worker runs on the instructor's machine). ``--private``: the worker's own files (Dask's
configuration folders, TLS keys and certificates, its local directory); those that lie inside
what learner children may read (the Python installation, the grader's package) are hidden too.
"""

from __future__ import annotations

import argparse
import io
import os
import select
import signal
import sys
from collections.abc import Sequence
from pathlib import Path

from grader.catalog import Catalog, project_root
from grader.cluster.fingerprint import fingerprint
from grader.cluster.protocol import (
    MAX_LINE,
    ProtocolError,
    SlotJob,
    done_line,
    error_line,
    fault_line,
    hello_line,
    parse_grade,
    result_line,
)
from grader.engine.api import GradeRequest
from grader.engine.local import LocalEngine
from grader.engine.scoring import merge_passes
from grader.errors import GraderError
from grader.resources import PACKAGE
from grader.results import Result
from grader.sandbox.policy import runtime_readable


class Orphaned(BaseException):
    """The slot's stdin closed or its parent changed: stop at once (gradings in flight are
    killed by the engine on the way out)."""


def inside(path: str, folders: Sequence[str]) -> bool:
    real = os.path.realpath(path)
    return any(real == f or real.startswith(f.rstrip("/") + "/") for f in folders)


def to_hide(private: Sequence[str], readable: Sequence[str]) -> list[str]:
    """Of the worker's own files and folders, the folders to hide from learner children: those
    that lie inside a readable (allowlisted) folder; a file is hidden with its folder. What
    lies outside every readable folder does not exist for a child already."""
    readable = [os.path.realpath(p) for p in readable]
    hide = []
    for path in private:
        if not os.path.lexists(path) or not inside(path, readable):
            continue
        real = os.path.realpath(path)
        hide.append(real if os.path.isdir(real) else os.path.dirname(real))
    return list(dict.fromkeys(hide))


class Slot:
    """The serving loop, over a LocalEngine already entered."""

    def __init__(
        self, engine: LocalEngine, stdin: io.BufferedReader, out: io.BufferedWriter, parent: int
    ) -> None:
        self.engine = engine
        self.stdin = stdin
        self.out = out
        self.parent = parent

    def send(self, line: bytes) -> None:
        self.out.write(line)
        self.out.flush()

    def watch(self) -> None:
        """Raise Orphaned when the driver side is gone (stdin at EOF, or a new parent)."""
        if os.getppid() != self.parent:
            raise Orphaned
        ready, _, _ = select.select([self.stdin], [], [], 0)
        if ready and not self.stdin.peek(1):
            raise Orphaned

    def serve(self) -> None:
        while True:
            line = self.stdin.readline(MAX_LINE + 1)
            if not line:
                return
            if not line.endswith(b"\n"):
                self.send(fault_line(f"a line longer than {MAX_LINE >> 20} MiB"))
                return
            try:
                jobs, refused, reports = parse_grade(line)
            except ProtocolError as exc:
                self.send(fault_line(f"a malformed chunk: {exc}"))
                continue
            for refusal in refused:
                self.send(error_line(refusal.key, refusal.message))
            self.grade(jobs, reports)
            self.send(done_line(len(jobs) + len(refused)))

    def grade(self, jobs: list[SlotJob], reports: bool) -> None:
        """Grade a chunk; one result or error line per job, as each completes."""
        from grader.render.html import render_result

        valid: list[SlotJob] = []
        for job in jobs:
            problem = self._problem(job)
            if problem:
                self.send(error_line(job.key, problem))
            else:
                valid.append(job)
        answered: set[str] = set()

        def on_result(index: int, result: Result, _report: str | None) -> None:
            job = valid[index]
            if job.prior is not None:
                result = merge_passes(self.engine.spec(job.request.exercise), [job.prior, result])
            self.send(result_line(job.key, result, render_result(result) if reports else None))
            answered.add(job.key)
            self.watch()

        requests: list[GradeRequest] = [job.request for job in valid]
        try:
            if requests:
                self.engine.grade_many(requests, on_result)
        except GraderError as exc:
            for job in valid:
                if job.key not in answered:
                    self.send(error_line(job.key, f"the grader failed: {exc.message}"))
        except Exception as exc:  # noqa: BLE001 - a grader bug costs its chunk, not the slot
            for job in valid:
                if job.key not in answered:
                    self.send(
                        error_line(job.key, f"the grader failed: {type(exc).__name__}: {exc}")
                    )

    def _problem(self, job: SlotJob) -> str:
        try:
            spec = self.engine.spec(job.request.exercise)
        except GraderError as exc:
            return exc.message
        prior = job.prior
        if prior is not None:
            if prior.exercise_id != spec.id or prior.submission != job.request.filename:
                return "the other pass's result is for another grading"
            if ("cuda" in prior.devices) == ("cuda" in job.request.devices):
                return "the other pass's result does not complement this pass"
        return ""


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m grader.cluster.slot")
    parser.add_argument("--exercise", action="append", default=[])
    parser.add_argument("--hide", action="append", default=[])
    parser.add_argument("--private", action="append", default=[])
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl-C is the driver's
    # The protocol gets the real stdout; anything else printed goes to stderr.
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    stdin = sys.stdin.buffer
    assert isinstance(stdin, io.BufferedReader)
    parent = os.getppid()

    def send(line: bytes) -> None:
        out.write(line)
        out.flush()

    try:
        catalog = Catalog(project_root())
        specs = [catalog.resolve(e) for e in args.exercise]
        hidden = list(args.hide) + to_hide(args.private, runtime_readable(str(PACKAGE)))
        engine = LocalEngine(catalog, jobs=1, hidden=[Path(p) for p in hidden], preload=specs)
        engine.__enter__()
    except GraderError as exc:
        send(fault_line(f"the grading process could not start: {exc.message}"))
        return 2
    except Exception as exc:  # noqa: BLE001 - said on the protocol, then the slot ends
        send(fault_line(f"the grading process could not start: {type(exc).__name__}: {exc}"))
        return 3
    try:
        tier = engine.isolation.split(" ", 1)[0]
        send(
            hello_line(
                pid=os.getpid(),
                gpus=engine.gpus,
                fingerprint=fingerprint(specs, tier),
                isolation=engine.isolation,
                hidden=hidden,
            )
        )
        Slot(engine, stdin, out, parent).serve()
    except (Orphaned, BrokenPipeError):
        pass
    finally:
        engine.__exit__(None, None, None)
    return 0


if __name__ == "__main__":
    sys.exit(main())
