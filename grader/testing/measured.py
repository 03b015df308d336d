"""Which of a test's judgements rest on what the learner's own process reported about itself.

Some checks can only be measured inside the process that runs the learner's code: how many
tensor operations a call made, which torch functions it called, what its inputs looked like
afterwards, which memory a result shares, what a scenario run next to the learner's code
found. That code could rewrite any of it. The learner proxy and the checks note here, per test,
which such measurements the test used; the plugin then lets a test that used one pass only for
a submission whose file does not reach into the grader or torch internals (its static review,
:func:`grader.testing.analysis.review`, is clean). So a forged measurement can only lose points.
"""

from __future__ import annotations

_taken: dict[str, None] = {}
_called: dict[str, None] = {}


def note(kind: str) -> None:
    """The current test used an in-process measurement of this kind."""
    _taken[kind] = None


def called(function: str) -> None:
    """The current test called this learner function (for the static backstop of meta cases)."""
    _called[function] = None


def functions() -> tuple[str, ...]:
    return tuple(_called)


def reset() -> None:
    _taken.clear()
    _called.clear()


def taken() -> tuple[str, ...]:
    """The kinds of in-process measurement the current test used, in first-use order."""
    return tuple(_taken)
