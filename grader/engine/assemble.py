"""From a worker's records to the Result of one submission.

Every (test, device) that the spec's manifest lists for the devices asked gets exactly one
verdict: the worker's record for it, or, when there is none, a ``timeout`` (the group ran out of
time) or an ``error`` blamed on the grader (the worker stopped). Then each failure is diagnosed
and the grading is scored (:mod:`grader.engine.scoring`).
"""

from __future__ import annotations

import os
import platform

from grader.diagnose import DiagnosisCatalog, diagnose
from grader.engine.records import TestRecord
from grader.engine.scheduler import Running
from grader.engine.scoring import GRADER_FAULT, summarize
from grader.errors import InternalError
from grader.i18n import Text, pick
from grader.results import Environment, Result, ReviewNote, Status, TestResult, read_source
from grader.spec import ExerciseSpec, TestSpec
from grader.version import __version__


def build_result(
    running: Running,
    key: str,
    worker_status: int | None,
    log: str,
    catalogue: DiagnosisCatalog,
    isolation: str,
) -> Result:
    """The Result of one submission of a group, from what the worker reported for it."""
    spec = running.spec
    job = running.jobs[int(key)]
    lang = job.lang
    by_key = {(r.name, r.device): r for r in running.records.get(key, [])}
    complete = key in running.done
    tests: list[TestResult] = []
    notes: list[str] = []
    missing = 0
    for test, device in spec.manifest(job.selected):
        record = by_key.get((test.name, device))
        if record is None:
            missing += 1
            record = _missing_record(running, key, test, device)
        tests.append(_test_result(test, record, lang, catalogue, spec))

    if running.grader_errors or (missing and not running.killed_for_time and not complete):
        detail = "; ".join(running.grader_errors) or _exit_text(worker_status)
        if log.strip():
            detail += "\n" + log.strip()[-3000:]
        if not any(running.records.values()) and running.grader_errors:
            raise InternalError(f"grading {spec.id} failed: {detail}")
        first = detail.splitlines()[0]
        notes.append(
            pick(
                lang,
                f"The grader itself failed during this grading ({first}).",
                f"评分器本身在本次评分中出错（{first}）。",
            )
        )
    if running.killed_for_time:
        limit = f"{spec.limits.total_timeout_s:g}"
        notes.append(
            pick(
                lang,
                f"Grading stopped after its limit of {limit} s.",
                f"评分在达到 {limit} 秒的上限后停止。",
            )
        )

    skipped = [t for t in tests if t.status is Status.SKIPPED]
    if skipped:
        reasons = sorted({t.message for t in skipped})
        notes.append(
            pick(
                lang,
                f"{len(skipped)} test(s) skipped: {'; '.join(reasons)}. The score counts "
                "only the tests that ran.",
                f"跳过了 {len(skipped)} 个测试：{'；'.join(reasons)}。分数只计算实际运行的测试。",
            )
        )
    status, score, max_score = summarize(tests)
    env = running.env
    environment = Environment(
        python=env.python if env else platform.python_version(),
        torch=env.torch if env else "",
        platform=env.platform if env else "",
        cuda_available=env.cuda_available if env else False,
        cuda_devices=env.cuda_devices if env else (),
        isolation=isolation,
    )
    return Result(
        exercise_id=spec.id,
        exercise_title=spec.title.get(lang),
        submission=job.filename,
        status=status,
        score=score,
        max_score=max_score,
        tests=tuple(tests),
        environment=environment,
        seed=job.seed,
        lang=lang,
        devices=job.selected,
        notes=tuple(notes),
        hints=tuple(h.get(lang) for h in spec.hints),
        source=read_source(job.path),
        cells=job.cells,
        review=_review(running, key, lang),
        grader_version=__version__,
        duration_s=running.duration(key),
    )


def _review(running: Running, key: str, lang: str) -> tuple[ReviewNote, ...]:
    """What the worker's static review of the file found (in the result's language)."""
    record = running.reviews.get(key)
    if record is None:
        return ()
    return tuple(
        ReviewNote(kind, line, zh if lang == "zh" else en) for kind, line, en, zh in record.findings
    )


def _exit_text(status: int | None) -> str:
    if status is None:
        return "the worker ended"
    if os.WIFSIGNALED(status):
        return f"the worker was killed by signal {os.WTERMSIG(status)}"
    return f"the worker exited with code {os.WEXITSTATUS(status)}"


def _missing_record(running: Running, key: str, test: TestSpec, device: str | None) -> TestRecord:
    if running.killed_for_time:
        return TestRecord(
            submission=key,
            name=test.name,
            device=device,
            status=Status.TIMEOUT,
            message=Text(
                "The grading ran out of its total time limit before this test ran.",
                "评分在运行本测试之前就用完了总时间限制。",
            ),
            evidence=("total_timeout",),
        )
    return TestRecord(
        submission=key,
        name=test.name,
        device=device,
        status=Status.ERROR,
        message=Text(
            "The grader stopped before this test could run (an internal error); tell your instructor.",
            "评分器在运行本测试之前停止了（内部错误）；请告诉你的老师。",
        ),
        evidence=(GRADER_FAULT,),
    )


def _evidence_line(record: TestRecord) -> int | None:
    """The learner's line that a static piece of evidence points at (the plugin's ``slip``)."""
    slip = record.data.get("slip") if isinstance(record.data, dict) else None
    line = slip.get("line") if isinstance(slip, dict) else None
    return line if isinstance(line, int) and not isinstance(line, bool) and line > 0 else None


def _test_result(
    test: TestSpec,
    record: TestRecord,
    lang: str,
    catalogue: DiagnosisCatalog,
    spec: ExerciseSpec,
) -> TestResult:
    status = record.status
    diagnosis = None
    if status in (Status.FAILED, Status.ERROR, Status.TIMEOUT):
        diagnosis = diagnose(
            catalogue,
            record.evidence,
            record.error,
            lang,
            exercise=spec.id,
            file=spec.learner_file,
            fixes=spec.fix,
            line=_evidence_line(record),
        )
    return TestResult(
        name=test.name,
        device=record.device,
        status=status,
        points=float(test.points) if status is Status.PASSED else 0.0,
        max_points=float(test.points),
        description=test.description.get(lang),
        message=record.message.get(lang) or record.message.en,
        diagnosis=diagnosis,
        evidence=record.evidence,
        frames=record.frames,
        output=record.output,
        output_truncated=record.output_truncated,
        duration_s=record.duration_s,
        data=dict(record.data),
    )
