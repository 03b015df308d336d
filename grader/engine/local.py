"""The local engine: the process tree that grades on this machine.

    grading process ──fork──► fork server ──fork──► learner child (per device, replaced if lost)
          └──────────fork──► trusted worker (pytest) ◄──socket──┘

The grading process (this one) imports torch, NumPy, pytest and the grader's modules once, then
freezes its heap and starts the fork server (:mod:`grader.sandbox.forkserver`). It never runs
tensor work, never asks CUDA anything and never loads a hidden test. For each group of gradings
it forks a trusted worker (:mod:`grader.engine.worker`), which runs the hidden tests and asks the
fork server for learner children. On a machine with a GPU, a request for both devices is
graded in two passes, CPU and CUDA, so that CUDA work can be limited to the GPU's share of
workers; the passes are merged into one Result.

Use as a context manager::

    with LocalEngine(jobs=2) as engine:
        result = engine.grade(GradeRequest("exercise-07", source, "exercise-07.py"))
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from grader.catalog import Catalog, project_root
from grader.diagnose import DiagnosisCatalog
from grader.engine.api import GradeRequest, OnResult
from grader.engine.assemble import build_result
from grader.engine.records import TestRecord
from grader.engine.scheduler import Job, Running, run_jobs, usable_cores
from grader.engine.scoring import merge_passes
from grader.engine.warmup import (
    preloads,
    warm_sandbox_side,
    warm_worker_side,
    worker_side_can_wait,
)
from grader.errors import InternalError, UsageError
from grader.resources import PACKAGE
from grader.results import Result
from grader.sandbox.policy import SandboxPolicy, runtime_paths, runtime_readable
from grader.spec import ExerciseSpec

_SLACK_S = 15.0  # beyond a group's total limits, for pytest itself and the report


def requested_tier() -> str | None:
    """The isolation tier GRADER_ISOLATION asks for (None: the strongest available)."""
    requested = os.environ.get("GRADER_ISOLATION") or None
    if requested not in (None, "process", "namespaces"):
        raise UsageError(
            f"GRADER_ISOLATION={requested} is not an isolation tier",
            hint="Use GRADER_ISOLATION=process or GRADER_ISOLATION=namespaces, or unset it.",
        )
    return requested


def _check_hideable(path: Path) -> None:
    """A folder hidden from learner children (under an empty tmpfs) must not hold what the
    children themselves run on: Python, its packages, the grader."""
    needed = [Path(p) for p in runtime_paths()] + [PACKAGE]
    for inside in needed:
        if inside == path or path in inside.parents:
            raise UsageError(
                f"{path} holds {inside}, which the grader needs while it grades",
                hint="Keep submissions and outputs in folders of their own, outside the "
                "grader's installation and its Python environment.",
            )


class LocalEngine:
    """Grades :class:`GradeRequest` s on this machine; holds the warm imports and the fork
    server for a whole run.

    ``jobs``: gradings at a time (default: the usable cores); ``gpu_jobs``: CUDA passes at a
    time (default: one per GPU); ``hidden``: folders learner children must not see beside the
    hidden tests and the solutions (a batch's submissions and outputs); ``preload``: the
    exercises to warm up for (default: every exercise the catalogue has); ``debug``: keep every
    test's record for authors (:meth:`records`), whose ``fault`` is the traceback of an
    exception raised by the hidden tests' own code, which no Result carries.

    Failures are diagnosed with the course's catalogue: the built-in one with the course's own
    ``diagnoses.yaml`` (:meth:`DiagnosisCatalog.for_course`).
    """

    def __init__(
        self,
        catalog: Catalog | None = None,
        *,
        jobs: int | None = None,
        gpu_jobs: int | None = None,
        hidden: Sequence[Path] = (),
        preload: Sequence[ExerciseSpec] | None = None,
        debug: bool = False,
    ) -> None:
        self.catalog = catalog or Catalog(project_root())
        self.jobs = max(1, jobs or usable_cores())
        self.gpu_jobs = gpu_jobs
        self._catalogue: DiagnosisCatalog | None = None
        self.debug = debug
        self._kept: dict[Any, tuple[TestRecord, ...]] = {}
        self.requested_tier = requested_tier()
        for path in hidden:
            _check_hideable(Path(path).resolve())
        root = self.catalog.root
        self.policy = SandboxPolicy(
            hidden=tuple(
                dict.fromkeys(
                    str(Path(p).resolve())
                    for p in (root / "exercises", root / "solutions", *hidden)
                )
            ),
            readable=runtime_readable(str(PACKAGE)),
        )
        self._preload = list(preload) if preload is not None else None
        self._forkserver: Any = None
        self._staging: Path | None = None
        self._staged = 0
        self._gpus: int | None = None
        self._specs: dict[str, ExerciseSpec] = {}
        self.isolation = ""

    # -- lifetime -----------------------------------------------------------------------------

    def __enter__(self) -> LocalEngine:
        specs = self._preload if self._preload is not None else self.catalog.all()
        wants = preloads(specs)
        later = worker_side_can_wait()
        warm_sandbox_side(wants["dynamo"])
        if not later:
            warm_worker_side(wants["hypothesis"])
        from grader.sandbox.forkserver import ForkServer, SpawnError

        self._staging = Path(tempfile.mkdtemp(prefix="grader-staging-"))
        self._forkserver = ForkServer(self.policy, self.requested_tier)
        try:
            self._forkserver.start(wait=False)
            # while the fork server tries out its tier: what this process needs and its forks
            # do not (the learner children come from the fork server)
            if later:
                warm_worker_side(wants["hypothesis"])
            self.catalogue  # noqa: B018 - read now, where it costs no time of its own
            self._forkserver.ready()
        except SpawnError as exc:
            self._forkserver = None
            self._cleanup()
            raise UsageError(
                str(exc), hint="Unset GRADER_ISOLATION to use the strongest tier available."
            ) from None
        except BaseException:  # a course's broken diagnoses.yaml: a SpecError, as it was
            self.__exit__(None, None, None)
            raise
        self.isolation = self._forkserver.tier.description
        return self

    @property
    def catalogue(self) -> DiagnosisCatalog:
        """What failures are diagnosed with: the built-in catalogue and the course's own."""
        if self._catalogue is None:
            self._catalogue = DiagnosisCatalog.for_course(self.catalog.root)
        return self._catalogue

    @property
    def learner_uids(self) -> range | None:
        """The uids this run's learner children get (None: they keep the grader's)."""
        tier = self._forkserver.tier if self._forkserver is not None else None
        if tier is None or not tier.own_uid:
            return None
        from grader.sandbox.tiers.uids import UID_SPAN

        base = self._forkserver.uid_base
        return range(base, base + UID_SPAN)

    def __exit__(self, *exc_info: object) -> None:
        if self._forkserver is not None:
            self._forkserver.stop()
            self._forkserver = None
        self._cleanup()

    def _cleanup(self) -> None:
        if self._staging is not None:
            shutil.rmtree(self._staging, ignore_errors=True)
            self._staging = None

    @property
    def gpus(self) -> int:
        """CUDA devices on this machine (asked once, in a child: see :func:`count_gpus`)."""
        if self._gpus is None:
            self._gpus = count_gpus()
        return self._gpus

    # -- the engine API -----------------------------------------------------------------------

    def grade(self, request: GradeRequest) -> Result:
        """Grade one request (blocking)."""
        return self.grade_many([request])[0]

    def grade_many(
        self,
        requests: Sequence[GradeRequest],
        on_result: OnResult | None = None,
    ) -> list[Result]:
        """Grade every request, ``jobs`` at a time; ``on_result(index, result, None)`` as
        each one completes (this engine renders nothing: the caller does). On
        KeyboardInterrupt the gradings in flight are stopped; results already handed to
        ``on_result`` stand."""
        if self._forkserver is None:
            raise InternalError("LocalEngine used outside `with LocalEngine() as engine:`")
        self._kept.clear()
        specs = {r.exercise: self.spec(r.exercise) for r in requests}
        work: list[Job] = []
        plan: dict[int, list[tuple[str, ...]]] = {}
        try:
            for index, request in enumerate(requests):
                spec = specs[request.exercise]
                path = self._stage(spec, request.source)
                passes = self._passes(request.devices)
                plan[index] = passes
                for selected in passes:
                    work.append(
                        Job(
                            spec=spec,
                            path=path,
                            filename=request.filename,
                            selected=selected,
                            seed=request.seed,
                            lang=request.lang,
                            tag=(index, selected),
                            cells=request.cells,
                        )
                    )
            parts: dict[int, dict[tuple[str, ...], Result]] = {}
            results: dict[int, Result] = {}

            def completed(job: Job, result: Result) -> None:
                index, selected = job.tag
                parts.setdefault(index, {})[selected] = result
                if len(parts[index]) == len(plan[index]):
                    merged = merge_passes(job.spec, [parts[index][p] for p in plan[index]])
                    results[index] = merged
                    _unstage(job.path)
                    if on_result is not None:
                        on_result(index, merged, None)

            run_jobs(
                self,
                work,
                parallel=self.jobs,
                gpu_parallel=self.gpu_jobs or max(1, self.gpus),
                on_result=completed,
            )
            return [results[i] for i in range(len(requests))]
        finally:
            for job in work:
                _unstage(job.path)

    def records(self, index: int) -> list[TestRecord]:
        """With ``debug``: the worker's records of request ``index`` of the last
        ``grade_many`` (every pass; a grading that was run again keeps its last run's). They hold both languages and each hidden-test exception's traceback
        (``fault``), for authors only: learners' outputs are made from Results."""
        return [
            record
            for tag, records in self._kept.items()
            if isinstance(tag, tuple) and tag[0] == index
            for record in records
        ]

    def spec(self, exercise: str) -> ExerciseSpec:
        """The exercise a request names (loaded once per run)."""
        if exercise not in self._specs:
            self._specs[exercise] = self.catalog.resolve(exercise)
        return self._specs[exercise]

    def _passes(self, devices: tuple[str, ...]) -> list[tuple[str, ...]]:
        """The grading passes of a request: on a GPU machine, CPU and CUDA apart (so CUDA work
        can be limited to the GPU's share of workers); elsewhere one pass."""
        if "cpu" in devices and "cuda" in devices and self.gpus:
            return [("cpu",), ("cuda",)]
        return [tuple(devices)]

    def _stage(self, spec: ExerciseSpec, source: bytes) -> Path:
        """The request's source as a private file, named as the exercise's learner file (the
        fork server copies it into each learner child's scratch folder)."""
        assert self._staging is not None
        self._staged += 1
        folder = self._staging / str(self._staged)
        folder.mkdir(mode=0o700)
        path = folder / spec.learner_file
        path.write_bytes(source)
        return path

    # -- what the scheduler calls ---------------------------------------------------------------

    def start(self, spec: ExerciseSpec, jobs: list[Job]) -> Running:
        """Fork a worker for a group of gradings of one exercise."""
        from grader.engine import worker
        from grader.sandbox.procs import die_with_parent

        if not self._forkserver.alive():
            # A learner child of the process tier can kill the fork server: start a new one.
            self._forkserver.stop()
            self._forkserver.start()
        read_fd, write_fd = os.pipe()
        handback_read, handback_write = os.pipe()
        client = self._forkserver.connect()
        log_fd, log_path = tempfile.mkstemp(prefix="grader-worker-", suffix=".log")
        first = jobs[0]
        group = worker.Group(
            spec=spec,
            submissions=tuple((str(n), job.path) for n, job in enumerate(jobs)),
            selected=first.selected,
            seed=first.seed,
            server_pid=self._forkserver.pid,
            names=tuple((str(n), job.filename) for n, job in enumerate(jobs)),
            cells=tuple((str(n), job.cells) for n, job in enumerate(jobs) if job.cells),
            named_tags=self.catalogue.named_evidence(),
        )
        parent_pid = os.getpid()
        pid = os.fork()
        if pid == 0:  # the trusted worker
            try:
                die_with_parent(parent_pid)
                os.setpgid(0, 0)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                os.close(read_fd)
                os.close(handback_write)
                control = self._forkserver.control_fd
                if control is not None:
                    os.close(control)
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(log_fd, 2)
                worker.run(group, client, write_fd, handback_read)
            finally:
                os._exit(70)
        os.close(write_fd)
        os.close(handback_read)
        os.close(log_fd)
        client.close()
        os.set_blocking(read_fd, False)
        os.set_blocking(handback_write, False)
        now = time.monotonic()
        budget = len(jobs) * spec.limits.total_timeout_s + _SLACK_S
        return Running(
            spec=spec,
            jobs=jobs,
            pid=pid,
            fd=read_fd,
            log_path=log_path,
            deadline=now + budget,
            started=now,
            handback_fd=handback_write,
        )

    def completed(self, running: Running) -> list[tuple[str, Result]]:
        """Results of the submissions the worker has reported complete since the last call."""
        keys = [str(n) for n in range(len(running.jobs)) if str(n) in running.done]
        return self._take(running, keys)

    def finish(self, running: Running) -> list[tuple[str, Result]]:
        """The remaining results of a worker that has finished (or was killed)."""
        status, log = running.discard()
        if status != 0:
            self._settle_abandoned()
        return self._take(running, [str(n) for n in range(len(running.jobs))], status, log)

    def _settle_abandoned(self) -> None:
        """After a worker that did not end by itself (killed, crashed): wait until the learner
        children it left are gone, as a worker that ends waits for its own. The fork server
        kills them when the worker's connection closes; the grading is over only when they
        are gone."""
        from grader.sandbox.forkserver import ENDED_WAIT_S, ForkServerClient

        server = self._forkserver
        if server is None or not server.alive():
            return  # replaced (with every child of it) before the next worker starts
        with contextlib.suppress(OSError, EOFError, ValueError), server.connect() as sock:
            ForkServerClient(sock, server.pid).settled(timeout=ENDED_WAIT_S)

    def _take(
        self, running: Running, keys: list[str], status: int | None = None, log: str = ""
    ) -> list[tuple[str, Result]]:
        out = []
        for key in keys:
            if key not in running.taken and key not in running.handed_on:
                running.taken.add(key)
                if self.debug:
                    self._kept[running.jobs[int(key)].tag] = tuple(running.records.get(key, []))
                result = build_result(running, key, status, log, self.catalogue, self.isolation)
                out.append((key, result))
        return out


def _unstage(path: Path) -> None:
    shutil.rmtree(path.parent, ignore_errors=True)


def count_gpus() -> int:
    """CUDA devices on this machine, asked in a short-lived child: this process must never
    initialise CUDA (its forks could not use it)."""
    import torch

    if torch.version.cuda is None:
        return 0
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            count = torch.cuda.device_count() if torch.cuda.is_available() else 0
            os.write(write_fd, str(count).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    with os.fdopen(read_fd, "rb") as handle:
        data = handle.read()
    os.waitpid(pid, 0)
    try:
        return int(data or 0)
    except ValueError:
        return 0
