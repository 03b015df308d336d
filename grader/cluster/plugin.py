"""What runs on a Dask worker: the plugin that holds one warm grading process per worker
thread, and the tasks the driver submits.

The driver registers :class:`SlotsPlugin` with ``Client.register_plugin``; Dask runs its
``setup`` on every worker, now and on any worker that joins (or is restarted by its nanny)
later, and its ``teardown`` when the worker closes or the driver unregisters it. ``setup``
only starts the processes (``subprocess``, never a fork of the worker); each warms up on its
own, and a task waits for its hello. A task finds the plugin again with
``get_worker().plugins[PLUGIN_NAME]``.

Tasks return plain data (outcomes: result dicts and reports, or errors), never raise for a
grading that went wrong; they raise only :class:`~grader.cluster.handle.SlotLost` (the
grading process died mid-chunk), which Dask retries.
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
from collections.abc import Iterator
from typing import Any

import dask.config
from distributed import WorkerPlugin, get_worker
from distributed.worker import Worker

from grader.cluster.fingerprint import refusal
from grader.cluster.handle import (
    SlotProcess,
    SlotRefused,
    outcome,
    slot_command,
    slot_env,
)

PLUGIN_NAME = "torch-grader-slots"
GPU = "GPU"  # the Dask resource a GPU worker declares: dask worker --resources GPU=1


def private_paths(worker: Worker) -> list[str]:
    """The worker's own files that learner children must never see: Dask's configuration
    folders (they may hold TLS settings and keys), the TLS files it uses, its local
    directory (spilled task data, uploaded files)."""
    paths = [*dask.config.paths, dask.config.PATH]
    security = getattr(worker, "security", None)
    for field in (
        "tls_ca_file",
        "tls_worker_cert",
        "tls_worker_key",
        "tls_client_cert",
        "tls_client_key",
        "tls_scheduler_cert",
        "tls_scheduler_key",
    ):
        value = getattr(security, field, None)
        if isinstance(value, str) and value and "-----BEGIN" not in value:  # a path, not PEM
            paths.append(value)
    for key in ("ca-file", "worker.cert", "worker.key", "client.cert", "client.key"):
        value = dask.config.get(f"distributed.comm.tls.{key}", None)
        if isinstance(value, str) and value and "-----BEGIN" not in value:
            paths.append(value)
    local = getattr(worker, "local_directory", None)
    if isinstance(local, str) and local:
        paths.append(local)
    return list(dict.fromkeys(os.path.abspath(os.path.expanduser(p)) for p in paths))


class SlotsPlugin(WorkerPlugin):
    """One warm grading process per worker thread, for one grading run (``run_id``)."""

    idempotent = False  # a new run replaces the last one's slots

    def __init__(
        self,
        run_id: str,
        exercises: list[str],
        hidden: list[str],
        gpu: bool,
        expected: dict[str, Any],
        command: list[str] | None = None,
        local: bool = False,
    ) -> None:
        self.run_id = run_id
        self.exercises = exercises
        self.hidden = hidden
        self.gpu = gpu  # whether this run has CUDA passes
        self.expected = expected  # the driver's fingerprint
        self.command = command  # another grading program (a benchmark's stand-in)
        self.local = local  # workers of a local:N cluster, which the driver itself runs
        self.slots: list[SlotProcess] = []
        self.address = ""
        self.label = ""  # how messages name this worker: its name and address
        self.gpu_worker = False
        self._free: queue.Queue[SlotProcess] | None = None  # made on the worker (unpicklable)

    def setup(self, worker: Worker) -> None:
        if self.local:
            # A terminal's Ctrl-C reaches the whole process group: it is for the driver, which
            # then closes the cluster. (A worker started with `dask worker` keeps its own.)
            with contextlib.suppress(ValueError):  # not the main thread: nothing to do
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        self.address = worker.address
        name = str(worker.name)
        self.label = worker.address if name == worker.address else f"{name} ({worker.address})"
        self.gpu_worker = worker.state.total_resources.get(GPU, 0) > 0
        # A slot keeps the GPUs only on a worker that declares them, in a run that uses them.
        env = slot_env(os.environ, gpu=self.gpu and self.gpu_worker)
        command = self.command or slot_command(self.exercises, self.hidden, private_paths(worker))
        self.slots = [
            SlotProcess(command, env, name=f"{worker.address} slot {n}")
            for n in range(worker.state.nthreads)
        ]
        self._free = queue.Queue()
        for slot in self.slots:
            slot.start()
            self._free.put(slot)

    def teardown(self, worker: Worker) -> None:
        for slot in self.slots:
            slot.begin_close()
        for slot in self.slots:
            slot.close()

    @contextlib.contextmanager
    def slot(self) -> Iterator[SlotProcess]:
        """A free slot of this worker (there is one per thread, so one is always free)."""
        free = self._free
        assert free is not None, "the plugin was not set up"
        slot = free.get()
        try:
            yield slot
        finally:
            free.put(slot)

    def refused(self, slot: SlotProcess) -> str:
        """Why this worker may not grade for the driver ("" when it may): its grading process
        could not start, or its fingerprint differs from the driver's."""
        try:
            hello = slot.hello()
        except SlotRefused as exc:
            return f"worker {self.label} refused: {exc}"
        return refusal(self.label, self.expected, hello.fingerprint, hello.isolation)


def _plugin(run_id: str) -> tuple[SlotsPlugin | None, str]:
    worker = get_worker()
    plugin = worker.plugins.get(PLUGIN_NAME)
    if not isinstance(plugin, SlotsPlugin) or plugin.run_id != run_id:
        return None, (
            f"worker {worker.address} has no grading slots for this run (was another grading "
            "run started on this cluster?)"
        )
    return plugin, ""


def check_worker(run_id: str) -> dict[str, Any]:
    """Task: wait for every slot of this worker to be warm; what the driver needs to accept
    the worker (``refused``: why not, else "")."""
    plugin, problem = _plugin(run_id)
    if plugin is None:
        return {"refused": problem}
    for slot in plugin.slots:
        why = plugin.refused(slot)
        if why:
            return {"refused": why}
    return {
        "refused": "",
        "worker": plugin.address,
        "name": str(get_worker().name),
        "gpu": plugin.gpu_worker,
        "slots": len(plugin.slots),
        "isolation": plugin.slots[0].hello().isolation if plugin.slots else "",
    }


def grade_chunk(
    run_id: str,
    label: str,
    jobs: list[dict[str, Any]],
    reports: bool,
    timeout_s: float,
    prior: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Task: grade a chunk of one exercise and one pass (``label``: cpu, cuda or all) in a
    warm slot of this worker. ``prior``: the CPU pass's answer for the same chunk, when this
    is its CUDA pass (the slot merges the two and renders the report)."""
    plugin, problem = _plugin(run_id)
    if plugin is None:
        return {"refused": problem}
    if prior is not None and prior.get("refused"):
        return prior
    placements = list(prior["placements"]) if prior is not None else []
    done: dict[str, dict[str, Any]] = {}
    if prior is not None:
        earlier = {o["key"]: o for o in prior["outcomes"]}
        ready = []
        for job in jobs:
            first = earlier.get(job["key"])
            if first is None or first["result"] is None:
                why = first["error"] if first is not None else "the CPU pass gave no answer"
                done[job["key"]] = outcome(job["key"], error=why)
            else:
                ready.append({**job, "prior": first["result"]})
        jobs_to_grade = ready
    else:
        jobs_to_grade = jobs
    with plugin.slot() as slot:
        why = plugin.refused(slot)
        if why:
            return {"refused": why}
        if jobs_to_grade:
            for answer in slot.grade(jobs_to_grade, reports, timeout_s):
                done[answer["key"]] = answer
    placements.append([label, plugin.address])
    return {
        "refused": "",
        "placements": placements,
        "outcomes": [done[job["key"]] for job in jobs],
    }
