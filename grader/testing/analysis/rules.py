"""Forbidden-API rules, matched by what a name resolves to.

A *bare* rule (``softmax``, ``cumsum``) forbids an operation in every spelling: whatever
:func:`~grader.testing.analysis.opnames.canonical_op` gives the same key for (functions,
methods, in-place forms, private and ``_C`` spellings, ``nn`` classes, ATen operators), its
backward operators, and any name the trusted side's torch resolves to an object that torch
exports under such a name. A *dotted* rule (``torch.optim``, ``nn.Linear``, ``F.softmax``)
forbids that object and everything under it: the names that resolve to it (any import alias,
a re-export such as ``torch.nn.modules.linear.Linear``, ``torch.optim.sgd.SGD``), and, for a
module, what is defined in it. A dotted rule naming a function forbids that function only; use
the bare name to forbid an operation in every spelling.

``nn``, ``F``, ``optim``, ``Tensor`` and ``np`` at the head of a dotted rule mean
``torch.nn``, ``torch.nn.functional``, ``torch.optim``, ``torch.Tensor`` and ``numpy``.
"""

from __future__ import annotations

import functools
import re
import types
from collections.abc import Iterable

from grader.testing.analysis import torchnames
from grader.testing.analysis.opnames import ALIASES, canonical_op, covers, is_aten

UNKNOWN_ROOT = "?"
_HEADS = {
    "nn": "torch.nn",
    "F": "torch.nn.functional",
    "functional": "torch.nn.functional",
    "optim": "torch.optim",
    "Tensor": "torch.Tensor",
    "np": "numpy",
}


class Rule:
    """One forbidden name."""

    def __init__(self, name: str):
        self.name = name
        self.bare = "." not in name
        if self.bare:
            self.key = canonical_op(name)
            self.path = name
            self.target = torchnames.MISSING
            self.tail: tuple[str, ...] = (name,)
            return
        head, _, rest = name.partition(".")
        path = name
        if head in _HEADS:
            path = f"{_HEADS[head]}.{rest}"
        elif (
            head not in ("torch", "numpy")
            and torchnames.lookup(f"torch.{name}") is not torchnames.MISSING
        ):
            path = f"torch.{name}"
        self.path = path
        self.key = canonical_op(name)
        self.target = torchnames.lookup(path)
        parts = path.split(".")
        self.tail = tuple(parts[1:]) if parts[0] in ("torch", "numpy") else tuple(parts)

    def __repr__(self) -> str:
        return f"Rule({self.name!r})"

    def _is_function(self) -> bool:
        return self.target is not torchnames.MISSING and _function(self.target)

    def spelled_in(self, words: Iterable[str], joined: str) -> bool:
        """Whether a block with these ``words`` (``joined`` one a line) may spell this rule."""
        if not self.bare:
            return not (set(self.tail) | {self.path.rsplit(".", 1)[-1]}).isdisjoint(words)
        for match in self._needle.finditer(joined):
            start = joined.rfind("\n", 0, match.start()) + 1
            end = joined.find("\n", match.end())
            if covers(self.name, joined[start : end if end >= 0 else len(joined)]):
                return True
        return False

    @functools.cached_property
    def _needle(self) -> re.Pattern[str]:
        """Words whose letters (case and underscores aside) contain the key or an alias of it:
        every word canonical_op maps to the key does."""
        keys = {self.key} | {src for src, dst in ALIASES.items() if dst == self.key}
        return re.compile(
            "|".join("_*".join(map(re.escape, key)) for key in sorted(keys)), re.IGNORECASE
        )

    def matches(self, value: str) -> bool:
        """Whether a resolved name (a dotted path, ``?.attr`` on something unknown, or a name
        from the learner-side trace) falls under this rule."""
        if self.bare:
            return self._bare(value)
        return self._dotted(value)

    def _bare(self, value: str) -> bool:
        if is_aten(value):
            return covers(self.name, value)
        parts = value.split(".")
        if parts[0] == UNKNOWN_ROOT or len(parts) == 1:
            return any(covers(self.name, p) for p in parts[1:] or parts)
        known = torchnames.prefixes(value)
        exports = torchnames.exports_of(self.key)
        for _, obj in known:
            if id(obj) in exports and not torchnames.is_module(obj):
                return True
        # The parts after the last module: the function, class or method names.
        modules = 0
        for _, obj in known:
            if torchnames.is_module(obj):
                modules += 1
            else:
                break
        return any(covers(self.name, p) for p in parts[max(modules, 1) :])

    def _dotted(self, value: str) -> bool:
        parts = value.split(".")
        if parts[0] == UNKNOWN_ROOT:
            # On something unknown, the chain must spell the rule's path after torch
            # (`mods[0].optim.SGD` for torch.optim); a lone function name (`x.softmax` for
            # torch.softmax) is a method, another object: the bare rule covers it.
            if len(self.tail) == 1 and self._is_function():
                return False
            return _contains(tuple(parts[1:]), self.tail)
        if value == self.path or value.startswith(self.path + "."):
            return True
        if value.endswith("." + self.name) or f".{self.name}." in value:
            return True
        target = self.target
        if target is torchnames.MISSING:
            return False
        for _, obj in torchnames.prefixes(value):
            if obj is target:
                return True
            if isinstance(target, types.ModuleType):
                inside = target.__name__ + "."
                if isinstance(obj, types.ModuleType) and obj.__name__.startswith(inside):
                    return True
                if isinstance(obj, (type, types.FunctionType)):
                    module = getattr(obj, "__module__", "") or ""
                    if module == target.__name__ or module.startswith(inside):
                        return True
        return False


def _function(target: object) -> bool:
    return callable(target) and not isinstance(target, type)


def _contains(parts: tuple[str, ...], run: tuple[str, ...]) -> bool:
    n = len(run)
    return any(parts[i : i + n] == run for i in range(len(parts) - n + 1))


@functools.lru_cache(maxsize=256)
def rule(name: str) -> Rule:
    return Rule(name)


def matches(value: str, name: str) -> bool:
    """Whether ``value`` (a resolved name or a traced function name) falls under the
    forbidden name ``name``."""
    return rule(name).matches(value)
