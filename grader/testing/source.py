"""Compatibility names for the static analysis, which now lives in ``grader.testing.analysis``.

The old helpers gave up silently (an empty list) on a file they could not parse; these raise
:class:`~grader.testing.analysis.Unanalysable` instead, so that a check built on them fails.
"""

from __future__ import annotations

from grader.testing.analysis import Unanalysable, Use, analyse, matches
from grader.testing.analysis import forbidden_uses as _forbidden_uses
from grader.testing.analysis import loops_in as _loops_in

__all__ = ["Unanalysable", "Use", "forbidden_uses", "loops_in", "matches"]


def forbidden_uses(
    source: str, rules: list[str], functions: tuple[str, ...] = (), graded: tuple[str, ...] = ()
) -> list[Use]:
    """Uses of any rule's name that count against ``functions`` (the whole file when empty)."""
    analysis = analyse(source)
    found: dict[tuple[str, int, str], Use] = {}
    for function in functions or ("",):
        for use in _forbidden_uses(analysis, function, rules, graded):
            found.setdefault((use.name, use.line, use.rule), use)
    return sorted(found.values(), key=lambda u: (u.line, u.name))


def loops_in(source: str, function: str) -> list[int]:
    """Lines of the Python loops reachable from ``function``."""
    return sorted({loop.line for loop in _loops_in(source, function)})
