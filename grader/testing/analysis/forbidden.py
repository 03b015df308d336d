"""Uses of forbidden APIs in the code that counts for a graded function."""

from __future__ import annotations

from collections.abc import Iterable

from grader.testing.analysis import dynamic
from grader.testing.analysis.core import (
    Analysis,
    Use,
    _unique,
    _use,
    analyse,
    computed_uses,
    counted,
    expressions,
)
from grader.testing.analysis.model import COMPUTED, UNDEFINED, UNKNOWN, Scope
from grader.testing.analysis.rules import rule


def forbidden_uses(
    source: str | bytes | Analysis,
    function: str,
    names: Iterable[str],
    graded: Iterable[str] = (),
) -> list[Use]:
    """Where the code that counts for ``function`` uses one of the forbidden ``names``
    (resolved: any alias, any spelling, see ``rules``), plus the places where it reaches names
    through strings (``getattr(torch, name)``), which count as uses that cannot be ruled out
    (``Use.computed``). Raises Unanalysable when the file cannot be analysed.

    What counts: module-level code, everything reachable from ``function``, and every other
    function or class of the file except those inside other ``graded`` functions.
    """
    analysis = source if isinstance(source, Analysis) else analyse(source)
    rules = [rule(n) for n in names]
    with analysis.guard():
        model = analysis.require()
        analysis.reach(function)
        model.ensure(
            b
            for b in model.blocks
            if b.index not in model.parsed
            and (not b.ascii or any(item.spelled_in(b.words, b.joined()) for item in rules))
        )
        found = list(computed_uses(analysis, function)) if rules else []
        for nodes, scope in counted(analysis, function, graded):
            found.extend(_matching(model, nodes, scope, rules))
        result = _unique(found)
    return result


def _matching(model, nodes, scope: Scope, rules) -> list[Use]:
    found = []
    for node, values in expressions(model, nodes, scope):
        for value in values:
            if not isinstance(value, str) or value in (UNKNOWN, COMPUTED, UNDEFINED):
                continue
            if dynamic.is_dynamic_path(value):
                continue
            for item in rules:
                if item.matches(value):
                    shown = value if not value.startswith(UNKNOWN) else _spelled(node)
                    found.append(_use(node, shown, scope, rule=item.name))
    return found


def _spelled(node) -> str:
    from grader.testing.analysis.model import spelling

    return spelling(node)
