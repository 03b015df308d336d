"""ClusterEngine: the :class:`~grader.engine.api.Engine` interface over a Dask cluster.

    driver (this process)                      each Dask worker
    ─────────────────────                      ────────────────
    ClusterEngine.grade_many                   SlotsPlugin: one warm grading process per thread
      chunks of 8-32 submissions ──submit──►   grade_chunk ──line protocol──► python -m
      of one exercise and one pass               (a Dask task)                 grader.cluster.slot
      Finished    ◄── outcomes ─────────────                                   (LocalEngine)
      on_result(index, result, report)

- **Start**: ``local:N`` starts a local cluster of N single-threaded worker processes (on a GPU
  machine the first ones, one per GPU, declare ``GPU=1`` and see only their GPU); an address
  connects to a running scheduler. The plugin is registered; every worker's slots warm up and
  report their fingerprint; a worker that differs from the driver (grader, Python, torch, an
  exercise's files) or that does not grade in the namespaces tier is refused, with what
  differs, and the run does not start.
- **Passes**: when the cluster has GPU workers, every submission is graded in two passes, as
  on a GPU machine: a CPU pass anywhere, then a CUDA pass only on a worker with the ``GPU``
  resource, which merges the two and renders the report. Without GPU workers, one pass in
  which the CUDA cases are skipped. ``gpus`` (GPU workers) is what the batch's cache key
  names, so a run's key says which passes it ran.
- **Results** come back per chunk as tasks complete and go to ``on_result`` at once, so the
  batch's cache keeps them and a killed run resumes. Reports are rendered on the workers.
- **Retry**: a worker lost mid-chunk makes Dask run the chunk again elsewhere (gradings are
  deterministic, so at-least-once is harmless); a slot that dies mid-chunk is retried twice; a
  chunk that still fails becomes results that say the grader failed (never cached).
- **Ctrl-C** stops the run at once: the loop waits at most ``TICK_S`` at a time and takes a
  Ctrl-C that one of Dask's finalisers swallowed (:mod:`grader.interrupts`); the chunks in
  flight are cancelled, and the results already handed on stand.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import os
import queue
import time
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import dask.config
from dask.utils import parse_timedelta
from distributed import Client, Future, Nanny, Scheduler, SpecCluster, wait

from grader import wire
from grader.catalog import Catalog, project_root
from grader.cluster.fingerprint import REQUIRED_TIER, fingerprint
from grader.cluster.plan import chunk_size, fault_result, parse_cluster
from grader.cluster.plugin import GPU, PLUGIN_NAME, SlotsPlugin, check_worker, grade_chunk
from grader.cluster.protocol import MAX_LINE, job_wire
from grader.engine.api import GradeRequest, OnResult
from grader.engine.local import _check_hideable, count_gpus
from grader.errors import InternalError, UsageError
from grader.interrupts import watch
from grader.results import Result
from grader.spec import ExerciseSpec

RETRIES = 2  # a chunk whose grading process died is graded again this many times
WORKERS_TIMEOUT_S = 60.0  # for a first worker to join a scheduler that has none
START_TIMEOUT_S = 900.0  # every worker's slots warm (imports, fork server, tier detection)
TICK_S = 0.5  # the longest the run's loop waits before it looks for a swallowed Ctrl-C
# A local:N cluster shares the cores it grades on with Dask's own processes, whose timers cost
# CPU whether or not there is work: on 2 cores an idle local:2 cluster took 8% of a core (the
# event-loop tick every 20 ms in the scheduler, the nannies and the workers; the system monitor
# every 0.5 s; the nannies' memory watch every 0.1 s; work stealing every 0.1 s), 3% with these.
# They only feed the dashboard (off here), a warning about a blocked event loop and the memory
# watch (a worker over its limit is still restarted, within a second); stealing moves tasks
# queued on a worker, and without GPUs none is (ClusterEngine._window). A cluster someone else
# runs keeps its own configuration.
QUIET_LOCAL = {
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
    "distributed.worker.memory.monitor-interval": "1s",
}
HINT = (
    "Give every worker the same torch-grader, Python, torch and course as this machine, "
    "grading in the namespaces tier (docs/CLUSTER.md)."
)


class Finished:
    """The chunks of a run as they end, in the order they end.

    Dask's ``as_completed`` blocks until the next one ends, which on a class with endless
    loops is many seconds: a loop that waits here at most ``timeout`` at a time can look for a
    Ctrl-C in between (:mod:`grader.interrupts`)."""

    def __init__(self) -> None:
        self._ended: queue.SimpleQueue[Future[Any]] = queue.SimpleQueue()

    def add(self, future: Future[Any]) -> None:
        future.add_done_callback(self._ended.put)  # also when it errs or is cancelled

    def next(self, timeout: float) -> Future[Any] | None:
        """The next chunk that ended, or None if none did within ``timeout`` seconds."""
        try:
            return self._ended.get(timeout=timeout)
        except queue.Empty:
            return None


class ClusterEngine:
    """Grades :class:`GradeRequest` s on a Dask cluster. Use as a context manager::

        with ClusterEngine("tcp://scheduler:8786") as engine:
            results = engine.grade_many(requests, on_result)

    ``hidden``: folders learner children must not see (on a worker that shares the driver's
    file system); ``preload``: the exercises the run grades (default: every exercise);
    ``reports``: each result's HTML report is rendered on the worker that graded it and
    handed to ``on_result`` (so the driver of a batch only writes files).
    After a run, ``placements`` lists (pass, worker) for every chunk graded and
    ``startup_s`` how long the cluster took to be ready.
    """

    def __init__(
        self,
        address: str,
        catalog: Catalog | None = None,
        *,
        hidden: Sequence[Path] = (),
        preload: Sequence[ExerciseSpec] | None = None,
        chunk: int | None = None,
        retries: int = RETRIES,
        connect_timeout_s: float | None = None,
        start_timeout_s: float = START_TIMEOUT_S,
        slot_command: Sequence[str] | None = None,
        reports: bool = False,
    ) -> None:
        self.kind, self.target = parse_cluster(address)
        self.reports = reports
        self.address = address
        self.catalog = catalog or Catalog(project_root())
        for path in hidden:
            _check_hideable(Path(path).resolve())
        self.hidden = [str(Path(p).resolve()) for p in hidden]
        self._preload = list(preload) if preload is not None else None
        self.chunk = chunk
        self.retries = retries
        # default: Dask's own setting (distributed.comm.timeouts.connect, 30 s)
        self.connect_timeout_s = connect_timeout_s
        self.start_timeout_s = start_timeout_s
        # the grading program each slot runs (default: python -m grader.cluster.slot); a
        # benchmark replays measured durations through a stand-in that speaks the protocol
        self.slot_command = list(slot_command) if slot_command is not None else None
        self.run_id = uuid.uuid4().hex
        self.client: Client | None = None
        self.cluster: SpecCluster | None = None
        self._gpus: int | None = None
        self._specs: dict[str, ExerciseSpec] = {}
        self.placements: list[tuple[str, str]] = []
        self.startup_s = 0.0
        self.isolation = ""
        self.workers: dict[str, dict[str, Any]] = {}  # address: name, gpu, slots (checked)

    # -- the cluster ----------------------------------------------------------------------------

    @property
    def gpus(self) -> int:
        """GPU workers of the cluster (those that declare the ``GPU`` resource): with any,
        submissions are graded in a CPU and a CUDA pass. Decided once per run."""
        if self._gpus is None:
            if self.kind == "local":
                assert isinstance(self.target, int)
                self._gpus = min(self.target, count_gpus())
            elif self.client is not None:
                self._gpus = self._gpu_workers(self.client)
            else:
                client = self._connect()
                try:
                    self._gpus = self._gpu_workers(client)
                finally:
                    client.close()
        return self._gpus

    def _connect(self) -> Client:
        try:
            timeout = self.connect_timeout_s or parse_timedelta(
                dask.config.get("distributed.comm.timeouts.connect")
            )
            client = Client(str(self.target), timeout=timeout)
        except (OSError, TimeoutError) as exc:
            raise UsageError(
                f"cannot reach the Dask scheduler at {self.target}: {exc}",
                hint="Start it with `dask scheduler` and its workers with `dask worker "
                "ADDRESS` (docs/CLUSTER.md).",
            ) from None
        try:
            client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
        except (OSError, TimeoutError):
            client.close()
            raise UsageError(
                f"no Dask worker joined the scheduler at {self.target} within "
                f"{WORKERS_TIMEOUT_S:g} s",
                hint="Start workers with `dask worker ADDRESS` (docs/CLUSTER.md).",
            ) from None
        return client

    @staticmethod
    def _gpu_workers(client: Client) -> int:
        workers = client.scheduler_info(n_workers=-1)["workers"]
        return sum(1 for w in workers.values() if (w.get("resources") or {}).get(GPU, 0) > 0)

    def _local_cluster(self, workers: int, gpus: int) -> SpecCluster:
        """N single-threaded worker processes on this machine (what ``LocalCluster(n_workers=N,
        threads_per_worker=1)`` starts), the first ``gpus`` of them pinned to one GPU each."""
        visible = [d.strip() for d in os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")]
        visible = [d for d in visible if d] or [str(n) for n in range(gpus)]
        spec: dict[str, Any] = {}
        for n in range(workers):
            options: dict[str, Any] = {
                "nthreads": 1,
                "host": "127.0.0.1",
                "dashboard": False,
                "silence_logs": logging.ERROR,
            }
            if n < gpus:
                options["resources"] = {GPU: 1}
                options["env"] = {"CUDA_VISIBLE_DEVICES": visible[n]}
            spec[f"grader-{n}"] = {"cls": Nanny, "options": options}
        scheduler = {
            "cls": Scheduler,
            "options": {"host": "127.0.0.1", "dashboard": False, "port": 0},
        }
        quiet = {**QUIET_LOCAL, "distributed.scheduler.work-stealing": bool(gpus)}
        # the scheduler and the nannies read them as they start, and each nanny hands them to
        # its worker (also to one it restarts)
        with dask.config.set(quiet):
            return SpecCluster(
                workers=spec, scheduler=scheduler, silence_logs=logging.ERROR, name="grade-batch"
            )

    def __enter__(self) -> ClusterEngine:
        started = time.monotonic()
        try:
            gpus = self.gpus  # decided before the cluster starts: the batch's key names it
            if self.kind == "local":
                assert isinstance(self.target, int)
                self.cluster = self._local_cluster(self.target, gpus)
                self.client = Client(self.cluster)
            else:
                self.client = self._connect()
            if gpus and not self._gpu_workers(self.client):
                raise UsageError("the cluster's GPU workers left before the run started")
            specs = self._preload if self._preload is not None else self.catalog.all()
            self._specs.update({spec.id: spec for spec in specs})
            plugin = SlotsPlugin(
                run_id=self.run_id,
                exercises=[spec.id for spec in specs],
                hidden=self.hidden,
                gpu=gpus > 0,
                expected=fingerprint(specs, REQUIRED_TIER),
                command=self.slot_command,
                local=self.kind == "local",
            )
            try:
                self.client.register_plugin(plugin, name=PLUGIN_NAME)
            except Exception as exc:  # noqa: BLE001 - e.g. a worker without the grader
                raise UsageError(
                    f"a worker could not load the grader's plugin: {type(exc).__name__}: {exc}",
                    hint=HINT,
                ) from None
            self._check_workers()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        self.startup_s = time.monotonic() - started
        return self

    def _check_workers(self) -> None:
        """Wait for every worker's slots; refuse the run if any worker differs."""
        assert self.client is not None
        workers = sorted(self.client.scheduler_info(n_workers=-1)["workers"])
        futures = [
            self.client.submit(
                check_worker,
                self.run_id,
                workers=[w],
                allow_other_workers=False,
                pure=False,
                key=f"grader-check-{n}-{self.run_id}",
            )
            for n, w in enumerate(workers)
        ]
        try:
            refusals = self._await_checks(dict(zip(futures, workers, strict=True)))
        finally:
            for future in futures:
                future.release()
        if not refusals and not self.workers:
            raise UsageError("every worker left the cluster before the run started", hint=HINT)
        if refusals:
            raise UsageError("; ".join(refusals), hint=HINT)

    def _await_checks(self, pending: dict[Future[Any], str]) -> list[str]:
        """The refusals, as the workers' checks (future -> worker) answer. A worker that left
        during the check is not waited for (if it comes back, its first task checks it); one
        that never answers is refused."""
        assert self.client is not None
        refusals: list[str] = []
        deadline = time.monotonic() + self.start_timeout_s
        with watch() as ctrl_c:
            while pending:
                ctrl_c.check()  # one a finaliser swallowed (grader.interrupts)
                try:
                    done = wait(list(pending), timeout=5.0, return_when="FIRST_COMPLETED").done
                except TimeoutError:  # nothing finished in those 5 s
                    done = set()
                for future in done:
                    refusals += self._checked(pending.pop(future), future)
                if done or not pending:
                    continue
                present = set(self.client.scheduler_info(n_workers=-1)["workers"])
                for future, worker in list(pending.items()):
                    if worker not in present:
                        del pending[future]
                if pending and time.monotonic() > deadline:
                    return refusals + [
                        f"worker {w} refused: its grading processes were not ready within "
                        f"{self.start_timeout_s:g} s"
                        for w in pending.values()
                    ]
        return refusals

    def _checked(self, worker: str, future: Future[Any]) -> list[str]:
        """A worker's check: its refusal, or nothing (and what it has is recorded)."""
        try:
            answer = future.result()
        except Exception as exc:  # noqa: BLE001 - whatever it is, it is refused
            return [f"worker {worker} could not be checked ({type(exc).__name__}: {exc})"]
        if answer["refused"]:
            return [answer["refused"]]
        self.isolation = answer["isolation"]
        self.workers[worker] = {k: answer[k] for k in ("name", "gpu", "slots")}
        return []

    def __exit__(self, *exc_info: object) -> None:
        client, cluster, self.client, self.cluster = self.client, self.cluster, None, None
        if client is not None:
            if cluster is None:  # a cluster that lives on: give its workers their memory back
                try:
                    client.unregister_worker_plugin(PLUGIN_NAME)
                except Exception:  # noqa: BLE001 - it may never have been registered
                    pass
            client.close()
        if cluster is not None:
            cluster.close()

    # -- the engine API -----------------------------------------------------------------------

    def grade(self, request: GradeRequest) -> Result:
        return self.grade_many([request])[0]

    def spec(self, exercise: str) -> ExerciseSpec:
        if exercise not in self._specs:
            self._specs[exercise] = self.catalog.resolve(exercise)
        return self._specs[exercise]

    def _passes(self, devices: tuple[str, ...]) -> list[tuple[str, ...]]:
        """As on one machine: with GPUs, CPU and CUDA apart; otherwise one pass."""
        if "cpu" in devices and "cuda" in devices and self.gpus:
            return [("cpu",), ("cuda",)]
        return [tuple(devices)]

    def grade_many(
        self,
        requests: Sequence[GradeRequest],
        on_result: OnResult | None = None,
    ) -> list[Result]:
        """Grade every request on the cluster; ``on_result(index, result, report)`` as each
        chunk completes (``report``: with ``reports``, rendered on the worker; else None). On KeyboardInterrupt the chunks in flight are cancelled; results
        already handed to ``on_result`` stand."""
        reports = self.reports
        client = self.client
        if client is None:
            raise InternalError("ClusterEngine used outside `with ClusterEngine(...) as engine:`")
        specs = [self.spec(r.exercise) for r in requests]
        slots = max(1, sum(client.nthreads().values()))
        groups: dict[tuple[Any, ...], list[int]] = {}
        for index, request in enumerate(requests):
            key = (specs[index].id, request.seed, request.lang, request.devices)
            groups.setdefault(key, []).append(index)
        size = self.chunk or chunk_size(len(requests), slots)
        chunks = [m[i : i + size] for m in groups.values() for i in range(0, len(m), size)]
        results: dict[int, Result] = {}

        def deliver(index: int, result: Result, report: str | None) -> None:
            if index in results:  # at-least-once: a chunk graded twice is delivered once
                return
            results[index] = result
            if on_result is not None:
                on_result(index, result, report)

        def fail(members: list[int], why: str) -> None:
            from grader.render.html import render_result

            for index in members:
                result = fault_result(specs[index], requests[index], why)
                deliver(index, result, render_result(result) if reports else None)

        def submit(members: list[int]) -> tuple[Future[Any], list[Future[Any]]]:
            devices = requests[members[0]].devices
            passes = self._passes(devices)
            budget = sum(specs[i].limits.total_timeout_s for i in members) + 120.0
            earlier: Future[Any] | None = None
            made: list[Future[Any]] = []
            for n, selected in enumerate(passes):
                jobs = [
                    job_wire(str(i), dataclasses.replace(requests[i], devices=selected))
                    for i in members
                ]
                last = n == len(passes) - 1
                label = "all" if len(selected) > 1 else selected[0]
                earlier = client.submit(
                    grade_chunk,
                    self.run_id,
                    label,
                    jobs,
                    reports and last,
                    budget,
                    earlier,
                    resources={GPU: 1} if "cuda" in selected and self.gpus else None,
                    retries=self.retries,
                    pure=False,
                    key=f"grade-{label}-{specs[members[0]].id}-{members[0]}-{self.run_id}",
                )
                made.append(earlier)
            assert earlier is not None
            return earlier, made

        pending = collections.deque(chunks)
        in_flight: dict[Future[Any], tuple[list[int], list[Future[Any]]]] = {}
        completed = Finished()

        def refill() -> None:
            # the slots of the workers there now: a cluster that scales up gains some mid-run
            window = self._window(max(1, sum(client.nthreads().values())))
            while pending and len(in_flight) < window:
                members = pending.popleft()
                final, made = submit(members)
                in_flight[final] = (members, made)
                completed.add(final)

        with watch() as ctrl_c:
            try:
                refill()
                while in_flight:
                    future = completed.next(timeout=TICK_S)
                    ctrl_c.check()  # one a finaliser swallowed: nothing more goes out
                    if future is None:
                        continue
                    members, made = in_flight.pop(future)
                    refill()  # the slot this chunk freed gets the next before its answer is read
                    try:
                        answer = future.result()
                    except Exception as exc:  # noqa: BLE001 - the chunk's results say so
                        answer = {"error": f"{type(exc).__name__}: {exc}"}
                    for f in made:
                        f.release()
                    if answer.get("refused"):
                        raise UsageError(answer["refused"], hint=HINT)
                    if "error" in answer:
                        fail(members, f"the cluster could not grade this chunk: {answer['error']}")
                    else:
                        self._take(answer, members, specs, requests, deliver, fail)
            except BaseException:
                running = [f for _, made in in_flight.values() for f in made]
                if running:
                    client.cancel(running)
                raise
            return [results[i] for i in range(len(requests))]

    def _window(self, slots: int) -> int:
        """How many chunks may be in flight at once, with ``slots`` slots on the cluster now.

        Without GPUs, one per slot: a chunk handed to the cluster beyond that waits on a
        worker's own queue, behind whatever that worker runs, even after every other slot has
        finished (Dask does not take it back: a chunk of 12 waited 6.5 s behind a classmate's
        endless loop, a tenth of the batch). Held back here instead, each goes to the first
        slot that frees. With GPUs, a chunk's CUDA pass waits for a GPU worker while its CPU
        slot is free, so more are in flight to keep the CPU slots busy."""
        return slots if not self.gpus else max(8, 4 * slots)

    def _take(
        self,
        answer: dict[str, Any],
        members: list[int],
        specs: list[ExerciseSpec],
        requests: Sequence[GradeRequest],
        deliver: Any,
        fail: Any,
    ) -> None:
        try:  # a task's answer, read strictly (grader.wire): a malformed one fails its chunk
            top = wire.Fields(answer, "answer", required=("refused", "placements", "outcomes"))
            placements = [
                wire.strings(v, w, max_items=2, max_len=1000)
                for w, v in top.sequence("placements", max_items=1000)
            ]
            outcomes = [
                wire.Fields(v, w, required=("key", "result", "report", "error"))
                for w, v in top.sequence("outcomes", max_items=len(requests) + 1)
            ]
        except wire.WireError as exc:
            fail(members, f"the cluster's answer is malformed ({exc})")
            return
        self.placements += [(p[0], p[-1]) for p in placements if p]
        answered = set()
        for item in outcomes:
            key = item.raw("key")
            index = int(key) if type(key) is str and key.isdigit() else -1
            if index not in members or index in answered:
                continue
            answered.add(index)
            try:
                if item.raw("result") is None:
                    fail([index], item.string("error", null=True, max_len=10_000) or "no answer")
                    continue
                result = Result.from_dict(item.raw("result"))
                report = item.string("report", null=True, max_len=MAX_LINE)
            except wire.WireError as exc:
                fail([index], f"a result that does not load ({exc})")
                continue
            deliver(index, result, report)
        missing = [i for i in members if i not in answered]
        if missing:
            fail(missing, "the worker gave no answer for this grading")
