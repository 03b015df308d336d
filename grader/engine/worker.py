"""The trusted worker: one forked process that runs the hidden tests of one grading with pytest.

It holds the hidden tests and the reference solution and makes every comparison; it never imports
the learner's file (learner code runs only in children of the fork server). It reports to the
grading process as JSON lines on a pipe: the environment, then one record per test as soon as the
test ends (so a worker that is killed loses nothing already graded), then ``done``.
"""

from __future__ import annotations

import os
import platform
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import torch

from grader.engine.handback import Handback
from grader.engine.plugin import GradedFile, GraderPlugin, GradingSession
from grader.engine.records import (
    EnvRecord,
    GraderErrorRecord,
    Record,
    ReviewRecord,
    TestRecord,
    to_line,
)
from grader.i18n import Text
from grader.notebooks import CellMap
from grader.results import Status
from grader.sandbox.forkserver import ForkServerClient
from grader.sandbox.policy import ChildLimits
from grader.sandbox.pool import ChildPool
from grader.sandbox.seeding import unseeded_accelerators
from grader.spec import ExerciseSpec
from grader.testing.analysis import Finding, analyse, review
from grader.text import source_text

# pytest's own plugins that a grading does not use; each costs time in every worker.
_UNUSED_PLUGINS = (
    "cacheprovider",
    "terminal",
    "logging",
    "warnings",
    "capture",
    "faulthandler",
    "junitxml",
    "doctest",
    "pastebin",
    "nose",
    "stepwise",
    "lfplugin",
    "unraisableexception",
    "threadexception",
    "legacypath",
    "tmpdir",
    "monkeypatch",
    "recwarn",
    "setuponly",
    "setupplan",
    "debugging",
)


@dataclass(frozen=True)
class Group:
    """One worker's gradings: submissions of one exercise, on the same devices and seed.

    ``submissions`` are (key, file) pairs; each is graded as if alone (its own learner
    children and time limit), and a group shares one pytest session. ``names`` say how the
    learner named each file (tracebacks and warnings in their code show that name).
    """

    spec: ExerciseSpec
    submissions: tuple[tuple[str, Path], ...]
    selected: tuple[str, ...]
    seed: int
    # the evidence tags the course's diagnoses name: read once by the grading process, which
    # forks every worker, rather than once in each
    named_tags: frozenset[str]
    server_pid: int | None = None  # the fork server's, to notice when it stops answering
    names: tuple[tuple[str, str], ...] = ()  # key -> the file's name as the learner gave it
    cells: tuple[tuple[str, CellMap], ...] = ()  # key -> a notebook's cell map


def pytest_args(spec: ExerciseSpec) -> list[str]:
    """pytest's command line for the hidden tests of ``spec``, and nothing around them.

    ``--confcutdir`` is the exercise's folder: pytest collects a file argument through a node
    for every folder above it up to the confcutdir (by default the filesystem's root), listing
    and matching each folder's entries; from a wheel's install under site-packages, or a
    server whose working folder is ``/``, that was a few hundred entries and up to 30 ms of
    every worker. No conftest is read anyway (``--noconftest``)."""
    args = [
        str(spec.test_path),
        "-c",
        os.devnull,
        "--rootdir",
        str(spec.folder),
        "--confcutdir",
        str(spec.folder),
        "--import-mode=importlib",
        "--assert=plain",
        "--noconftest",
        "-p",
        "no:timeout",
    ]
    for name in _UNUSED_PLUGINS:
        args += ["-p", f"no:{name}"]
    return args


def cuda_status(selected: tuple[str, ...]) -> tuple[bool, Text, list[str]]:
    """(available, why not, device names). Asked here, never in the fork server."""
    if "cuda" not in selected:
        return (
            False,
            Text("CUDA was not selected (--device cpu)", "未选择 CUDA（--device cpu）"),
            [],
        )
    if not torch.cuda.is_available():
        if torch.version.cuda is None:
            return (
                False,
                Text(
                    f"CUDA is not available on this machine (a CPU-only build of torch {torch.__version__})",
                    f"本机无法使用 CUDA（torch {torch.__version__} 是仅支持 CPU 的版本）",
                ),
                [],
            )
        return (
            False,
            Text(
                f"CUDA is not available on this machine (no usable GPU; torch {torch.__version__})",
                f"本机无法使用 CUDA（没有可用的 GPU；torch {torch.__version__}）",
            ),
            [],
        )
    names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
    return True, Text("", ""), names


def run(job: Group, client_sock: Any, records_fd: int, handback_fd: int | None = None) -> None:
    """The worker's body (in the forked process). Never returns. ``handback_fd`` is where the
    grading process says it handed the rest of the group to another worker
    (:mod:`grader.engine.handback`)."""
    out = os.fdopen(records_fd, "w", encoding="utf-8", buffering=1)

    def emit(record: Record) -> None:
        try:
            line = to_line(record)
        except (ValueError, TypeError, RecursionError):
            if not isinstance(record, TestRecord):
                raise
            line = to_line(_unrecordable(record))
        out.write(line)
        out.flush()

    code = 0
    try:
        os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
        # hypothesis keeps nothing on disk (PROPERTY sets database=None); anything else it
        # would write goes to a scratch folder, never into the learner's or the exercise's.
        os.environ.setdefault(
            "HYPOTHESIS_STORAGE_DIRECTORY",
            os.path.join(tempfile.gettempdir(), f"grader-hypothesis-{os.getuid()}"),
        )
        torch.set_num_threads(1)
        spec = job.spec
        available, reason, names = cuda_status(job.selected)
        unseeded_accelerators(cuda_possible=available or _cuda_unasked(job.selected))
        emit(
            EnvRecord(
                python=platform.python_version(),
                torch=torch.__version__,
                platform=f"{platform.system()} {platform.machine()}",
                cuda_available=available,
                cuda_devices=tuple(names),
            )
        )
        limits = spec.limits
        client = ForkServerClient(client_sock, job.server_pid)
        paths = dict(job.submissions)
        shown_as = dict(job.names)

        def make_pool(key: str) -> ChildPool:
            return ChildPool(
                client,
                str(paths[key]),
                spec.learner_file,
                display=shown_as.get(key, spec.learner_file),
                call_timeout_s=limits.call_timeout_s,
                total_deadline=time.monotonic() + limits.total_timeout_s,
                memory_mb=limits.memory_mb,
                output_bytes=limits.output_kb << 10,
                limits=ChildLimits(memory_mb=limits.memory_mb),
            )

        submissions = []
        for key, path in job.submissions:
            source = _whole_source(path)
            findings = needs_review(source)
            emit(ReviewRecord(key, tuple((f.kind, f.line, f.en, f.zh) for f in findings)))
            submissions.append(GradedFile(key, source, findings, dict(job.cells).get(key)))
        session = GradingSession(
            spec=spec,
            selected=job.selected,
            seed=job.seed,
            submissions=submissions,
            make_pool=make_pool,
            emit=emit,
            cuda_available=available,
            cuda_reason=reason,
            named_tags=job.named_tags,
            handback=Handback(handback_fd),
        )
        if submissions:
            # Nearly every grading has tests for the CPU child (CPU, meta and device-free
            # tests): the first submission's is started while pytest starts up.
            session.pool(submissions[0].key).prestart("cpu")
        try:
            # Every test's verdict is reported as it ends; the grading process finds any that
            # is missing, so pytest's own exit status tells nothing more.
            pytest.main(pytest_args(spec), plugins=[GraderPlugin(session)])
        finally:
            session.close()
    except BaseException as exc:  # noqa: BLE001 - reported, then the worker ends
        import traceback

        traceback.print_exc(file=sys.stderr)
        try:
            emit(GraderErrorRecord(f"{type(exc).__name__}: {exc}"))
        except BaseException:  # noqa: BLE001
            pass
        code = 70
    finally:
        try:
            out.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def _cuda_unasked(selected: tuple[str, ...]) -> bool:
    """Whether CUDA might still start in this worker, unasked: a CPU pass of a build with
    CUDA (or ROCm) support, whose worker never asks (only a CUDA pass does, in cuda_status)."""
    return "cuda" not in selected and (torch.version.cuda or torch.version.hip) is not None


def needs_review(source: str) -> tuple[Finding, ...]:
    """What in a learner's file reaches into the grader or torch internals (read here, never
    run). A file that does not even parse is not flagged: its grading fails anyway."""
    problem = analyse(source).problem
    if problem is not None and problem.kind == "syntax":
        return ()
    return tuple(review(source))


def _whole_source(path: Path) -> str:
    """The learner's whole file as text, for the static checks (never cut: a long prefix
    must not hide what follows); "" when it cannot be read (the grading says why)."""
    try:
        return source_text(path.read_bytes())
    except OSError:
        return ""


def _unrecordable(record: TestRecord) -> TestRecord:
    """A verdict whose data cannot be written as JSON (a learner's value made it so): the test
    is an error, blamed on that submission, and the rest of the group goes on."""
    return TestRecord(
        submission=record.submission,
        name=record.name,
        device=record.device,
        status=Status.ERROR,
        message=Text(
            "The grader could not record the outcome of this test: your answer holds data it "
            "cannot store.",
            "评分器无法记录本测试的结果：你的答案中含有无法保存的数据。",
        ),
        evidence=("unreadable_answer",),
    )
