"""The trusted worker: one forked process that runs the hidden tests of one grading with pytest.

It holds the hidden tests and the reference solution and makes every comparison; it never imports
the learner's file (learner code runs only in children of the fork server). It reports to the
grading process as JSON lines on a pipe: the environment, then one record per test as soon as the
test ends (so a worker that is killed loses nothing already graded), then ``done``.
"""

from __future__ import annotations

import json
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

from grader.plugin import GraderPlugin, Session, Submission
from grader.results import read_source
from grader.sandbox.forkserver import ForkServerClient
from grader.sandbox.isolation import ChildLimits
from grader.sandbox.pool import ChildPool
from grader.spec import ExerciseSpec, Text

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
    children and time limit), and a group shares one pytest session.
    """

    spec: ExerciseSpec
    submissions: tuple[tuple[str, Path], ...]
    selected: tuple[str, ...]
    seed: int


def pytest_args(spec: ExerciseSpec) -> list[str]:
    args = [
        str(spec.test_path),
        "-c",
        os.devnull,
        "--rootdir",
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


def run(job: Group, client_sock: Any, records_fd: int) -> None:
    """The worker's body (in the forked process). Never returns."""
    out = os.fdopen(records_fd, "w", encoding="utf-8", buffering=1)

    def emit(record: dict[str, Any]) -> None:
        out.write(json.dumps(record, ensure_ascii=False, allow_nan=False, default=str) + "\n")
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
        emit(
            {
                "type": "env",
                "python": platform.python_version(),
                "torch": torch.__version__,
                "platform": f"{platform.system()} {platform.machine()}",
                "cuda_available": available,
                "cuda_devices": names,
                "cuda_reason": reason.to_dict(),
            }
        )
        limits = spec.limits
        client = ForkServerClient(client_sock)
        paths = dict(job.submissions)

        def make_pool(key: str) -> ChildPool:
            return ChildPool(
                client,
                str(paths[key]),
                spec.learner_file,
                call_timeout_s=limits.call_timeout_s,
                total_deadline=time.monotonic() + limits.total_timeout_s,
                memory_mb=limits.memory_mb,
                output_bytes=limits.output_kb << 10,
                limits=ChildLimits(memory_mb=limits.memory_mb),
            )

        submissions = [Submission(key, read_source(path)) for key, path in job.submissions]
        session = Session(
            spec=spec,
            selected=job.selected,
            seed=job.seed,
            submissions=submissions,
            make_pool=make_pool,
            emit=emit,
            cuda_available=available,
            cuda_reason=reason,
        )
        try:
            exit_code = pytest.main(pytest_args(spec), plugins=[GraderPlugin(session)])
        finally:
            session.close()
        emit({"type": "done", "pytest_exit": int(exit_code)})
    except BaseException as exc:  # noqa: BLE001 - reported, then the worker ends
        import traceback

        traceback.print_exc(file=sys.stderr)
        try:
            emit({"type": "grader_error", "message": f"{type(exc).__name__}: {exc}"})
        except BaseException:  # noqa: BLE001
            pass
        code = 70
    finally:
        try:
            out.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
