"""What a cluster run is made of, apart from Dask (so that it can be tested and simulated
without it): the ``--cluster`` argument, the size of a task, and the result of a grading that
the cluster could not produce."""

from __future__ import annotations

import math
import platform
import re

from grader.engine.api import GradeRequest
from grader.engine.scoring import GRADER_FAULT, summarize
from grader.errors import UsageError
from grader.i18n import pick
from grader.results import (
    MAX_SOURCE_CHARS,
    Environment,
    Result,
    Status,
    TestResult,
)
from grader.spec import ExerciseSpec
from grader.text import source_text
from grader.version import __version__

MIN_CHUNK, MAX_CHUNK = 8, 32
_ADDRESS = re.compile(r"^(?:(tcp|tls|ws|wss|ucx|inproc)://)?[\w.\-\[\]:]+:[0-9]+\Z")


def parse_cluster(address: str) -> tuple[str, int | str]:
    """``local:N`` as ("local", N); a scheduler's address as ("remote", address)."""
    text = address.strip()
    if text.startswith("local:"):
        count = text[len("local:") :]
        if count.isdigit() and int(count) >= 1:
            return "local", int(count)
    elif _ADDRESS.match(text):
        return "remote", text
    raise UsageError(
        f"--cluster {address}: not a Dask scheduler address or local:N",
        hint="Use --cluster tcp://HOST:8786 for a running cluster, or --cluster local:4 "
        "for four local worker processes.",
    )


def chunk_size(requests: int, slots: int) -> int:
    """Submissions per task: about four tasks per slot (so the last ones share out), within
    8-32 (so that dispatch never costs more than the gradings)."""
    return max(MIN_CHUNK, min(MAX_CHUNK, math.ceil(requests / max(1, 4 * slots))))


def fault_result(spec: ExerciseSpec, request: GradeRequest, why: str) -> Result:
    """The result of a grading the cluster could not produce: every test an error the grader
    is to blame for (scores 0, never cached, exit code 3), and why."""
    lang = request.lang
    message = pick(
        lang,
        "The grader could not run this test (an internal error); tell your instructor.",
        "评分器未能运行本测试（内部错误）；请告诉你的老师。",
    )
    tests = tuple(
        TestResult(
            name=test.name,
            device=device,
            status=Status.ERROR,
            points=0.0,
            max_points=float(test.points),
            description=test.description.get(lang),
            message=message,
            evidence=(GRADER_FAULT,),
        )
        for test, device in spec.manifest(request.devices)
    )
    status, score, max_score = summarize(tests)
    first = why.splitlines()[0] if why else "unknown"
    return Result(
        exercise_id=spec.id,
        exercise_title=spec.title.get(lang),
        submission=request.filename,
        status=status,
        score=score,
        max_score=max_score,
        tests=tests,
        environment=Environment(
            python=platform.python_version(), torch="", platform="", cuda_available=False
        ),
        seed=request.seed,
        lang=lang,
        devices=request.devices,
        notes=(
            pick(
                lang,
                f"The grader itself failed during this grading ({first}).",
                f"评分器本身在本次评分中出错（{first}）。",
            ),
        ),
        hints=tuple(h.get(lang) for h in spec.hints),
        source=source_text(request.source)[:MAX_SOURCE_CHARS],
        grader_version=__version__,
    )
