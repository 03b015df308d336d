"""Scores, statuses and what they mean for an exit code: the policy, in one place.

A test the grader itself could not judge carries the ``grader_fault`` evidence: it scores 0,
makes the grading an ``error``, and makes ``grade`` exit with 3, because its score cannot be
trusted. Everything the learner's code did (a syntax error, a crash, a timeout) is a result, never
an exit code of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from grader.errors import ExitCode, UsageError
from grader.results import Result, Status, TestResult
from grader.spec import ExerciseSpec

GRADER_FAULT = "grader_fault"

# Evidence of a submission that could not even be imported: the grading is an error.
IMPORT_EVIDENCE = frozenset(
    {
        "syntax_error",
        "import_error",
        "exit_at_import",
        "import_timeout",
        "import_crashed",
        "unreadable_file",
    }
)


def is_grader_fault(test: TestResult) -> bool:
    return GRADER_FAULT in test.evidence


# Evidence of a test that something other than the learner's code cut short.
NOT_THE_LEARNERS_DOING = frozenset({GRADER_FAULT, "sandbox_lost"})


def attributable(result: Result, *, complete: bool) -> bool:
    """Whether a result is the learner's own doing: its worker reported it complete, and no test
    was cut short by the grader or by a sandbox that broke under it. A grading shared with
    classmates that fails this is graded again, alone; alone, whatever happens is its own."""
    return complete and not any(NOT_THE_LEARNERS_DOING & set(t.evidence) for t in result.tests)


def cacheable(result: Result) -> bool:
    """Whether a result may be reused for the same submission later: never one the grader
    itself failed in (it is graded again next time)."""
    return not grader_faulted(result)


def grader_faulted(result: Result) -> bool:
    """The grader itself failed on some test of this grading: its score cannot be trusted."""
    return any(is_grader_fault(t) for t in result.tests)


def summarize(tests: Sequence[TestResult]) -> tuple[Status, float, float]:
    """A grading's status, score and maximum from its tests (skipped ones do not count)."""
    graded = [t for t in tests if t.status is not Status.SKIPPED]
    score = sum(t.points for t in graded)
    max_score = sum(t.max_points for t in graded)
    if any(set(t.evidence) & (IMPORT_EVIDENCE | {GRADER_FAULT}) for t in graded):
        return Status.ERROR, score, max_score
    if graded and all(t.status is Status.PASSED for t in graded):
        return Status.PASSED, score, max_score
    return Status.FAILED, score, max_score


def merge_passes(spec: ExerciseSpec, results: Sequence[Result]) -> Result:
    """One Result from a CPU pass and a CUDA pass of the same submission (on a GPU machine the
    CUDA cases are scheduled apart). The passes grade disjoint parts of the manifest (see
    ExerciseSpec.manifest)."""
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


def exit_code(result: Result) -> ExitCode:
    """``grade ID``'s exit code for a result: 3 when the grader failed somewhere in it, 0 when
    every graded test passed, 1 otherwise; a grading in which every test was skipped graded
    nothing, which is the caller's mistake (exit 2)."""
    if any(is_grader_fault(t) for t in result.tests):
        return ExitCode.INTERNAL
    if not result.graded:
        raise UsageError(
            "nothing was graded: every test was skipped",
            hint="; ".join(result.notes) or "Try --device all.",
        )
    return ExitCode.OK if result.status is Status.PASSED else ExitCode.TESTS_FAILED
