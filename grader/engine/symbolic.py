"""Stand-ins for ``torch.fx.experimental.symbolic_shapes`` and ``sympy``, which eager meta-device
ops import for answers that are plain outside of tracing.

Most exercises have meta-device cases (the stand-in for a GPU on a machine without one). A meta
op with a Python kernel (``x + 1``, ``torch.arange``) calls helpers of the symbolic-shapes module
(``guard_or_false(a)``, ``sym_eq(shape, other)``, ...) and asks ``isinstance(x, sympy.Basic)``;
importing that module and sympy costs about a third of a second, in the grading process before
it can fork, or else in every worker and learner child. For the plain Python bools and ints of
eager work, each of those helpers gives a plain answer (its argument, True, an equality); only
symbolic values (``torch.SymInt`` under ``torch.compile`` or ``torch.export``, which grading
never does) need the real module.

So :func:`install` puts :class:`ShapesStandIn` and :class:`SympyStandIn` in ``sys.modules``.
The shapes stand-in answers the helpers listed in ``_PLAIN`` itself where every argument is a
plain value, exactly as the real function would (including the AssertionError the real one
raises for a wrong type: that case goes to the real function); anything else (another
attribute, a symbolic argument, a submodule import, anything of sympy's beyond ``Basic``, such
as a learner's ``sympy.Symbol``) loads the real modules, which answer from then on. ``sympy.Basic`` before sympy is loaded is a class no
object is an instance of: no sympy object can exist before sympy is loaded. A stand-in can be
slower than the real module, never different. ``grader.engine.dynamo`` does the same for
``torch._dynamo``.
"""

from __future__ import annotations

import importlib
import importlib.util
import operator
import sys
import types
from collections.abc import Callable
from functools import reduce
from typing import Any

from grader.engine.dynamo import package_stand_in

SHAPES = "torch.fx.experimental.symbolic_shapes"
SYMPY = "sympy"

_NOT_PLAIN = object()  # a plain answer cannot be given: ask the real function
# Dunders a learner's code may read of the module itself (the others are what copy, pickle
# and inspect probe, which are no reason to load it).
_REAL_DUNDERS = frozenset({"__version__", "__file__", "__all__", "__cached__"})


def _bool(a: Any, *rest: Any, **options: Any) -> Any:
    return a if type(a) is bool else _NOT_PLAIN


def _int(a: Any) -> Any:
    return a if type(a) is int else _NOT_PLAIN


def _hint(a: Any) -> Any:
    return a if type(a) in (bool, int) else _NOT_PLAIN


def _number(a: Any) -> bool:
    return type(a) in (bool, int, float)


def _always_hinted(a: Any) -> Any:
    return True if _number(a) else _NOT_PLAIN


def _never_nested(a: Any) -> Any:
    return False if _number(a) else _NOT_PLAIN


def _real_only(*args: Any, **kwargs: Any) -> Any:
    return _NOT_PLAIN


def _fold(op: Callable[[Any, Any], Any]) -> Callable[..., Any]:
    def plain(x: Any, *others: Any) -> Any:
        if not all(type(v) is bool for v in (x, *others)):
            return _NOT_PLAIN
        return reduce(op, others, x)

    return plain


def _sym_eq(x: Any, y: Any) -> Any:
    if isinstance(x, (tuple, list)) and isinstance(y, (tuple, list)):
        if len(x) != len(y):
            return False
        answers = [_sym_eq(a, b) for a, b in zip(x, y, strict=True)]
        if any(a is _NOT_PLAIN for a in answers):
            return _NOT_PLAIN
        return all(answers)
    if type(x) in (bool, int) and type(y) in (bool, int):
        return x == y
    return _NOT_PLAIN


# The helpers torch's Python meta kernels and references call on every eager op, and their
# answer for plain values (torch/fx/experimental/symbolic_shapes.py: each returns its bool or
# int argument, True, False, or the fold of ``|``, ``&`` and ``==``). guard_size_oblivious is
# imported by every contiguity check but called only on symbolic shapes, and the real one
# warns that it is deprecated: its import costs nothing, and a call is always the real one's.
_PLAIN: dict[str, Callable[..., Any]] = {
    "guard_or_false": _bool,
    "guard_or_true": _bool,
    "guard_bool": _bool,
    "statically_known_true": _bool,
    "expect_true": _bool,
    "guard_int": _int,
    "guard_size_oblivious": _real_only,
    "guarding_hint_or_throw": _hint,
    "has_guarding_hint": _always_hinted,
    "is_nested_int": _never_nested,
    "sym_or": _fold(operator.or_),
    "sym_and": _fold(operator.and_),
    "sym_eq": _sym_eq,
}


class _NoSympyObject:
    """``sympy.Basic`` while sympy is not loaded: nothing is an instance of it."""


class SympyStandIn(types.ModuleType):
    """``sys.modules["sympy"]`` until something needs sympy itself."""

    _real: types.ModuleType | None = None

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name not in _REAL_DUNDERS:
            raise AttributeError(name)  # copy, pickle and inspect probe these: not a reason
        if name == "Basic" and self._real is None:
            return _NoSympyObject
        return getattr(load_real(SYMPY), name)


class ShapesStandIn(types.ModuleType):
    """``sys.modules["torch.fx.experimental.symbolic_shapes"]`` until something needs more than
    the plain answers of ``_PLAIN``."""

    _real: types.ModuleType | None = None
    _answers: dict[str, Callable[..., Any]]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name not in _REAL_DUNDERS:
            raise AttributeError(name)
        plain = _PLAIN.get(name)
        if plain is None or self._real is not None:
            return getattr(load_real(SHAPES), name)
        answers = self.__dict__.setdefault("_answers", {})
        if name not in answers:
            answers[name] = _answering(self, name, plain)
        return answers[name]


def _answering(module: ShapesStandIn, name: str, plain: Callable[..., Any]) -> Callable[..., Any]:
    def answer(*args: Any, **kwargs: Any) -> Any:
        if module._real is None:
            value = plain(*args, **kwargs)
            if value is not _NOT_PLAIN:
                return value
        return getattr(load_real(SHAPES), name)(*args, **kwargs)

    answer.__name__ = answer.__qualname__ = name
    return answer


_CLASSES: dict[str, type[types.ModuleType]] = {SYMPY: SympyStandIn, SHAPES: ShapesStandIn}


def install() -> bool:
    """Put both stand-ins in place where neither real module is loaded yet. Returns whether
    they are in place."""
    current = [sys.modules.get(name) for name in _CLASSES]
    if any(module is not None for module in current):
        return all(isinstance(m, _CLASSES[n]) for n, m in zip(_CLASSES, current, strict=True))
    import torch.fx.experimental

    sympy = package_stand_in(SympyStandIn, SYMPY, lambda: load_real(SYMPY))
    if sympy is None:
        return False
    shapes = ShapesStandIn(SHAPES, "symbolic shapes, loaded when something needs more than eager")
    shapes.__package__ = SHAPES.rpartition(".")[0]
    found = importlib.util.find_spec(SHAPES)  # its parent packages are imported already
    if found is not None:
        shapes.__file__ = found.origin  # as package_stand_in does: a probe loads nothing
    sys.modules[SYMPY] = sympy
    sys.modules[SHAPES] = shapes
    torch.fx.experimental.symbolic_shapes = shapes
    return True


def load_real(name: str) -> types.ModuleType:
    """Replace a stand-in by the real module (a no-op once it is real). The shapes module
    imports sympy: sympy is made real first, so the real module holds the real sympy."""
    current = sys.modules.get(name)
    if current is not None and not isinstance(current, _CLASSES[name]):
        return current
    if name == SHAPES:
        load_real(SYMPY)
    sys.modules.pop(name, None)
    try:
        real = importlib.import_module(name)
    except BaseException:
        if current is not None:  # keep answering what the stand-in can
            sys.modules[name] = current
            if name == SHAPES:
                import torch.fx.experimental

                torch.fx.experimental.symbolic_shapes = current
        raise
    if current is not None:
        current._real = real  # type: ignore[attr-defined]
    return real
