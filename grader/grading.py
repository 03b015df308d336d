"""Grading submissions: the process tree, and turning what it reports into a Result.

The grading process (this module) imports torch, NumPy, pytest and the grader's modules once, then
freezes its heap and starts the fork server. It never runs tensor work, never asks CUDA anything
and never loads a hidden test. For each grading it forks a trusted worker (:mod:`grader.worker`),
which runs the hidden tests and asks the fork server for learner children. The worker streams one
record per test; this module checks them against the manifest, so that every (test, device) the
spec lists gets exactly one verdict, whatever happened to the worker.

    grading process ──fork──► fork server ──fork──► learner child (per device, replaced if lost)
          └──────────fork──► trusted worker (pytest) ◄──socket──┘
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import importlib
import json
import math
import os
import platform
import re
import select
import signal
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader import __version__
from grader.diagnose import Catalogue, diagnose
from grader.errors import InternalError, UsageError
from grader.results import Environment, Frame, Result, Status, TestResult, read_source
from grader.spec import ExerciseSpec, TestSpec

DEFAULT_SEED = 20261129
_SLACK_S = 15.0  # beyond an exercise's total limit, for pytest itself and the report


# torch imports torch._dynamo (about 1 s) the first time a process steps an optimizer, traces
# with a dispatch mode (op counting), or runs a meta-device op that has a Python decomposition
# (torch.arange). Imported once here before forking, it costs neither the trusted worker nor any
# learner child, and never shows up as test time.
_DYNAMO_WORDS = re.compile(r"\boptim\b|\bmeta\b|trace=True")


def preloads(specs: list[ExerciseSpec]) -> dict[str, bool]:
    """What to import before forking for gradings of ``specs``: torch._dynamo (see above) and
    hypothesis, each only where some exercise will need it (each costs about a second)."""
    dynamo = hypothesis = False
    for spec in specs:
        dynamo = dynamo or any("meta" in spec.test_devices(t) for t in spec.tests)
        for path in (spec.test_path, spec.solution_path):
            try:
                text = path.read_text(encoding="utf-8")
            except OSError:
                continue
            dynamo = dynamo or bool(_DYNAMO_WORDS.search(text))
            hypothesis = hypothesis or (path == spec.test_path and "hypothesis" in text)
    return {"dynamo": dynamo, "hypothesis": hypothesis}


def warm_up(dynamo: bool = False, hypothesis: bool = False) -> None:
    """Import everything a worker or a learner child will need, once, before any fork."""
    import numpy
    import numpy.random  # noqa: F401 - numpy imports it lazily, on first use in every child
    import torch
    import torch.nn.functional
    import torch.overrides
    import torch.utils._python_dispatch  # noqa: F401
    from _pytest.config import default_plugins, essential_plugins

    for name in (*essential_plugins, *default_plugins):
        with contextlib.suppress(ImportError):
            importlib.import_module(f"_pytest.{name}")
    for name in (
        "child",
        "codec",
        "faults",
        "forkserver",
        "isolation",
        "pool",
        "protocol",
        "proxy",
    ):
        importlib.import_module(f"grader.sandbox.{name}")
    importlib.import_module("grader.plugin")
    importlib.import_module("grader.worker")
    importlib.import_module("grader.testing")
    if dynamo:
        importlib.import_module("torch._dynamo")  # imports only: no CUDA, no threads
    if hypothesis:
        importlib.import_module("grader.testing.properties")
    # Objects that exist now live as long as the process: freezing them keeps every fork's
    # copy-on-write pages shared and makes pytest's gc.collect() in each worker cheap.
    gc.collect()
    gc.freeze()


@dataclass
class Running:
    """A worker in flight: a group of submissions of one exercise, what the worker reported so
    far, and the group's deadline. Submissions are finalised as the worker reports each one
    complete, so a batch keeps every result even if the worker is killed later."""

    spec: ExerciseSpec
    submissions: list[tuple[str, Path]]  # (key, file), in grading order
    selected: tuple[str, ...]
    seed: int
    lang: str
    pid: int
    fd: int
    log_path: str
    deadline: float
    started: float
    records: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    done: dict[str, float] = field(default_factory=dict)  # key -> when it was reported complete
    taken: set[str] = field(default_factory=set)  # keys whose Result was handed out
    env: dict[str, Any] = field(default_factory=dict)
    grader_errors: list[str] = field(default_factory=list)
    killed_for_time: bool = False
    finished: bool = False
    _buffer: bytes = b""

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
                record = json.loads(line)
            except ValueError:
                self.grader_errors.append("the worker wrote a malformed record")
                continue
            kind = record.get("type")
            if kind == "env":
                self.env = record
            elif kind == "test":
                self.records.setdefault(str(record.get("submission")), []).append(record)
            elif kind == "submission_done":
                self.done[str(record.get("submission"))] = time.monotonic()
            elif kind == "grader_error":
                self.grader_errors.append(str(record.get("message", "")))

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
        return status, _read_and_remove(self.log_path)

    def reap(self) -> int | None:
        try:
            _, status = os.waitpid(self.pid, 0)
            return status
        except ChildProcessError:
            return None


def _requested_tier() -> str | None:
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
    from grader.sandbox.namespaces import runtime_paths

    needed = [Path(p) for p in runtime_paths()] + [Path(__file__).resolve().parent]
    for inside in needed:
        if inside == path or path in inside.parents:
            raise UsageError(
                f"{path} holds {inside}, which the grader needs while it grades",
                hint="Keep submissions and outputs in folders of their own, outside the "
                "grader's installation and its Python environment.",
            )


class Grader:
    """Grades submissions; holds the warm imports and the fork server for a whole run.

    Use as a context manager: ``with Grader() as g: result = g.grade(spec, path)``.
    """

    def __init__(
        self,
        *,
        preload_dynamo: bool = False,
        preload_hypothesis: bool = False,
        hidden: tuple[Path, ...] = (),
    ) -> None:
        from grader.catalog import project_root

        self._forkserver: Any = None
        self._preload = {"dynamo": preload_dynamo, "hypothesis": preload_hypothesis}
        self.catalogue = Catalogue.load()
        self.requested_tier = _requested_tier()
        root = project_root()
        # What learner children must not see: the hidden tests and the solutions always, and
        # whatever the caller adds (a batch's submissions and outputs).
        for path in hidden:
            _check_hideable(Path(path).resolve())
        self.hidden = tuple(
            dict.fromkeys(
                str(Path(p).resolve()) for p in (root / "exercises", root / "solutions", *hidden)
            )
        )
        self.isolation = ""

    @classmethod
    def for_specs(cls, specs: list[ExerciseSpec], *, hidden: tuple[Path, ...] = ()) -> Grader:
        """A Grader warmed for gradings of these exercises."""
        return cls(**{f"preload_{k}": v for k, v in preloads(specs).items()}, hidden=hidden)

    def __enter__(self) -> Grader:
        warm_up(**self._preload)
        from grader.sandbox.forkserver import ForkServer, SpawnError

        self._forkserver = ForkServer(self.hidden, self.requested_tier)
        try:
            self._forkserver.start()
        except SpawnError as exc:
            self._forkserver = None
            raise UsageError(
                str(exc), hint="Unset GRADER_ISOLATION to use the strongest tier available."
            ) from None
        self.isolation = self._forkserver.tier.description
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._forkserver is not None:
            self._forkserver.stop()
            self._forkserver = None

    # -- running ------------------------------------------------------------------------------

    def start(
        self,
        spec: ExerciseSpec,
        submissions: list[tuple[str, Path]],
        *,
        selected: tuple[str, ...] = ("cpu", "cuda"),
        seed: int = DEFAULT_SEED,
        lang: str = "en",
    ) -> Running:
        """Fork a worker for a group of gradings of one exercise, ``(key, file)`` each.

        Poll it with :func:`poll`, collect results with :meth:`completed` and :meth:`finish`.
        """
        from grader import worker

        if self._forkserver is None:
            raise InternalError("Grader.start() outside `with Grader() as grader:`")
        if not self._forkserver.alive():
            # A learner child of the process tier can kill the fork server: start a new one.
            self._forkserver.stop()
            self._forkserver.start()
        group = [(str(key), Path(path)) for key, path in submissions]
        read_fd, write_fd = os.pipe()
        client = self._forkserver.connect()
        log_fd, log_path = tempfile.mkstemp(prefix="grader-worker-", suffix=".log")
        job = worker.Group(
            spec=spec,
            submissions=tuple((k, p.resolve()) for k, p in group),
            selected=selected,
            seed=seed,
        )
        parent_pid = os.getpid()
        pid = os.fork()
        if pid == 0:  # the trusted worker
            try:
                from grader.sandbox.namespaces import die_with_parent

                die_with_parent(parent_pid)
                os.setpgid(0, 0)
                signal.signal(signal.SIGINT, signal.SIG_IGN)
                os.close(read_fd)
                control = self._forkserver.control_fd
                if control is not None:
                    os.close(control)
                null = os.open(os.devnull, os.O_RDWR)
                os.dup2(null, 0)
                os.dup2(null, 1)
                os.dup2(log_fd, 2)
                worker.run(job, client, write_fd)
            finally:
                os._exit(70)
        os.close(write_fd)
        os.close(log_fd)
        client.close()
        os.set_blocking(read_fd, False)
        now = time.monotonic()
        budget = len(group) * spec.limits.total_timeout_s + _SLACK_S
        return Running(
            spec=spec,
            submissions=group,
            selected=selected,
            seed=seed,
            lang=lang,
            pid=pid,
            fd=read_fd,
            log_path=log_path,
            deadline=now + budget,
            started=now,
        )

    def grade(
        self,
        spec: ExerciseSpec,
        submission: Path,
        *,
        selected: tuple[str, ...] = ("cpu", "cuda"),
        seed: int = DEFAULT_SEED,
        lang: str = "en",
    ) -> Result:
        """Grade one submission of one exercise (blocking)."""
        job = Job(spec, submission, selected=selected, seed=seed, lang=lang)
        [(_, result)] = grade_many(self, [job], parallel=1)
        return result

    def completed(self, running: Running) -> list[tuple[str, Result]]:
        """Results of the submissions the worker has reported complete since the last call."""
        return self._take(running, [k for k, _ in running.submissions if k in running.done])

    def finish(self, running: Running) -> list[tuple[str, Result]]:
        """The remaining results of a worker that has finished (or was killed)."""
        status, log = running.discard()
        return self._take(running, [k for k, _ in running.submissions], status, log)

    def _take(
        self, running: Running, keys: list[str], status: int | None = None, log: str = ""
    ) -> list[tuple[str, Result]]:
        out = []
        for key in keys:
            if key not in running.taken:
                running.taken.add(key)
                result = build_result(running, key, status, log, self.catalogue, self.isolation)
                out.append((key, result))
        return out


@dataclass(frozen=True)
class Job:
    """One grading to run as part of many (validate, batch)."""

    spec: ExerciseSpec
    submission: Path
    tag: Any = None  # the caller's label, handed back with the result
    selected: tuple[str, ...] = ("cpu", "cuda")
    seed: int = DEFAULT_SEED
    lang: str = "en"


def usable_cores() -> int:
    """The cores this process may run on (its affinity: a container's or taskset's limit)."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


MAX_GROUP = 8  # submissions per worker: enough to share a pytest session, few enough to share out


def grade_many(
    grader: Grader,
    jobs: list[Job],
    *,
    parallel: int,
    on_result: Callable[[Job, Result], None] | None = None,
    gpu_parallel: int | None = None,
) -> list[tuple[Job, Result]]:
    """Grade every job, ``parallel`` workers at a time; results come back in job order.

    Jobs of the same exercise, devices, seed and language share workers in groups of up to
    ``MAX_GROUP``. ``on_result(job, result)`` is called as each one completes (progress, and
    storing results as they come). Workers grading CUDA alone count against ``gpu_parallel``.
    On KeyboardInterrupt the workers in flight are killed; every result already handed to
    ``on_result`` stands.
    """
    parallel = max(1, parallel)
    groups: dict[tuple, list[int]] = {}
    for index, job in enumerate(jobs):
        groups.setdefault((job.spec.id, job.selected, job.seed, job.lang), []).append(index)
    # as many workers as can run at once for each kind of job, up to MAX_GROUP submissions each
    size = max(1, min(MAX_GROUP, math.ceil(len(jobs) / (parallel * max(1, len(groups))))))
    pending = [
        members[i : i + size] for members in groups.values() for i in range(0, len(members), size)
    ]
    running: list[tuple[list[int], Running]] = []
    done: dict[int, Result] = {}

    def deliver(members: list[int], results: list[tuple[str, Result]]) -> None:
        for key, result in results:
            index = members[int(key)]
            done[index] = result
            if on_result is not None:
                on_result(jobs[index], result)

    try:
        while pending or running:
            gpu_busy = sum(1 for _, r in running if _on_gpu(r.selected))
            for members in list(pending):
                if len(running) >= parallel:
                    break
                first = jobs[members[0]]
                on_gpu = _on_gpu(first.selected)
                if on_gpu and gpu_parallel is not None and gpu_busy >= gpu_parallel:
                    continue
                pending.remove(members)
                group = [(str(n), jobs[i].submission) for n, i in enumerate(members)]
                run = grader.start(
                    first.spec, group, selected=first.selected, seed=first.seed, lang=first.lang
                )
                running.append((members, run))
                gpu_busy += on_gpu
            poll([r for _, r in running], timeout=1.0)
            for members, run in list(running):
                deliver(members, grader.completed(run))
                if run.finished:
                    running.remove((members, run))
                    deliver(members, grader.finish(run))
    except BaseException:
        for _, run in running:
            run.kill()
        for _, run in running:
            run.discard()
        raise
    return [(job, done[i]) for i, job in enumerate(jobs)]


def _on_gpu(selected: tuple[str, ...]) -> bool:
    """Whether a worker grades CUDA cases alone (a batch's CUDA pass), counted against the
    GPU's share of workers."""
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


def _read_and_remove(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()[-20000:]
    except OSError:
        return ""
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


# ---------------------------------------------------------------------------------------------
# From records to a Result

_IMPORT_EVIDENCE = {
    "syntax_error",
    "import_error",
    "exit_at_import",
    "import_timeout",
    "import_crashed",
    "unreadable_file",
}


def build_result(
    running: Running,
    key: str,
    worker_status: int | None,
    log: str,
    catalogue: Catalogue,
    isolation: str,
) -> Result:
    """The Result of one submission of a group, from what the worker reported for it."""
    spec, lang = running.spec, running.lang
    records = running.records.get(key, [])
    submission = dict(running.submissions)[key]
    complete = key in running.done
    by_key = {(r.get("name"), r.get("device")): r for r in records}
    tests: list[TestResult] = []
    notes: list[str] = []
    missing = 0
    for test, device in spec.manifest(running.selected):
        record = by_key.get((test.name, device))
        if record is None:
            missing += 1
            record = _missing_record(running, test)
        tests.append(_test_result(spec, test, device, record, lang, catalogue))

    if running.grader_errors or (missing and not running.killed_for_time and not complete):
        detail = "; ".join(running.grader_errors) or _exit_text(worker_status)
        if log.strip():
            detail += "\n" + log.strip()[-3000:]
        if not any(running.records.values()) and running.grader_errors:
            raise InternalError(f"grading {spec.id} failed: {detail}")
        notes.append(
            _text(
                lang,
                f"The grader itself failed during this grading ({detail.splitlines()[0]}).",
                f"评分器本身在本次评分中出错（{detail.splitlines()[0]}）。",
            )
        )
    if running.killed_for_time:
        notes.append(
            _text(
                lang,
                f"Grading stopped after its limit of {spec.limits.total_timeout_s:g} s.",
                f"评分在达到 {spec.limits.total_timeout_s:g} 秒的上限后停止。",
            )
        )

    skipped = [t for t in tests if t.status is Status.SKIPPED]
    if skipped:
        reasons = sorted({t.message for t in skipped})
        notes.append(
            _text(
                lang,
                f"{len(skipped)} test(s) skipped: {'; '.join(reasons)}. The score counts "
                "only the tests that ran.",
                f"跳过了 {len(skipped)} 个测试：{'；'.join(reasons)}。分数只计算实际运行的测试。",
            )
        )
    status, score, max_score = summarize(tests)
    env = running.env
    environment = Environment(
        python=str(env.get("python", platform.python_version())),
        torch=str(env.get("torch", "")),
        platform=str(env.get("platform", "")),
        cuda_available=bool(env.get("cuda_available", False)),
        cuda_devices=tuple(env.get("cuda_devices", ())),
        isolation=isolation,
    )
    return Result(
        exercise_id=spec.id,
        exercise_title=spec.title.get(lang),
        submission=str(submission),
        status=status,
        score=score,
        max_score=max_score,
        tests=tuple(tests),
        environment=environment,
        seed=running.seed,
        lang=lang,
        devices=running.selected,
        notes=tuple(notes),
        hints=tuple(h.get(lang) for h in spec.hints),
        source=read_source(submission),
        grader_version=__version__,
        duration_s=running.duration(key),
    )


def summarize(tests: list[TestResult] | tuple[TestResult, ...]) -> tuple[Status, float, float]:
    """A grading's status, score and maximum from its tests (skipped ones do not count)."""
    graded = [t for t in tests if t.status is not Status.SKIPPED]
    score = sum(t.points for t in graded)
    max_score = sum(t.max_points for t in graded)
    if any(set(t.evidence) & (_IMPORT_EVIDENCE | {"grader_fault"}) for t in graded):
        return Status.ERROR, score, max_score
    if graded and all(t.status is Status.PASSED for t in graded):
        return Status.PASSED, score, max_score
    return Status.FAILED, score, max_score


def merge_passes(spec: ExerciseSpec, results: list[Result]) -> Result:
    """One Result from a CPU pass and a CUDA pass of the same submission (batch on a GPU
    machine). The passes grade disjoint parts of the manifest (see ExerciseSpec.manifest)."""
    if len(results) == 1:
        return results[0]
    cpu = next(r for r in results if "cuda" not in r.devices)
    cuda = next(r for r in results if "cuda" in r.devices)
    pick = {(t.name, t.device): t for r in (cpu, cuda) for t in r.tests}
    tests = tuple(
        pick[(t.name, d)] for t, d in spec.manifest(("cpu", "cuda")) if (t.name, d) in pick
    )
    status, score, max_score = summarize(tests)
    return dataclasses.replace(
        cpu,
        tests=tests,
        status=status,
        score=score,
        max_score=max_score,
        environment=cuda.environment,
        devices=("cpu", "cuda"),
        notes=tuple(dict.fromkeys(cpu.notes + cuda.notes)),
        duration_s=round(cpu.duration_s + cuda.duration_s, 3),
    )


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


def _text(lang: str, en: str, zh: str) -> str:
    return zh if lang == "zh" else en


def _exit_text(status: int | None) -> str:
    if status is None:
        return "the worker ended"
    if os.WIFSIGNALED(status):
        return f"the worker was killed by signal {os.WTERMSIG(status)}"
    return f"the worker exited with code {os.WEXITSTATUS(status)}"


def _missing_record(running: Running, test: TestSpec) -> dict[str, Any]:
    if running.killed_for_time:
        return {
            "status": "timeout",
            "evidence": ["total_timeout"],
            "message": {
                "en": "The grading ran out of its total time limit before this test ran.",
                "zh": "评分在运行本测试之前就用完了总时间限制。",
            },
        }
    return {
        "status": "error",
        "evidence": ["grader_fault"],
        "message": {
            "en": "The grader stopped before this test could run (an internal error); tell your instructor.",
            "zh": "评分器在运行本测试之前停止了（内部错误）；请告诉你的老师。",
        },
    }


def _test_result(
    spec: ExerciseSpec,
    test: TestSpec,
    device: str | None,
    record: dict[str, Any],
    lang: str,
    catalogue: Catalogue,
) -> TestResult:
    status = Status(record.get("status", "error"))
    message = record.get("message") or {}
    text = message.get(lang) or message.get("en") or ""
    evidence = tuple(str(e) for e in record.get("evidence") or ())
    error = record.get("error") or None
    diagnosis = None
    if status in (Status.FAILED, Status.ERROR, Status.TIMEOUT):
        diagnosis = diagnose(catalogue, evidence, error, lang)

    frames = tuple(
        Frame(int(f.get("line", 0)), str(f.get("function", "")), str(f.get("code", "")))
        for f in record.get("frames") or ()
        if isinstance(f, dict)
    )
    data = dict(record.get("data") or {})
    if record.get("check_data"):
        data["check"] = record["check_data"]
    return TestResult(
        name=test.name,
        device=device,
        status=status,
        points=float(test.points) if status is Status.PASSED else 0.0,
        max_points=float(test.points),
        description=test.description.get(lang),
        message=text,
        diagnosis=diagnosis,
        evidence=evidence,
        frames=frames,
        output=str(record.get("output", "")),
        output_truncated=bool(record.get("output_truncated", False)),
        duration_s=float(record.get("duration_s", 0.0)),
        data=data,
    )


def check_submission(path: Path) -> Path:
    """A user-given submission path that exists and is a readable file (else a UsageError)."""
    if not path.exists():
        raise UsageError(f"{path} does not exist")
    if not path.is_file():
        raise UsageError(f"{path} is not a file")
    try:
        with open(path, "rb"):
            pass
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    return path
