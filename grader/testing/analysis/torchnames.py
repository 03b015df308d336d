"""What a dotted name is in the trusted side's own torch, found without running anything.

:func:`lookup` follows a path through module dictionaries and class MROs only: no
``__getattr__`` (torch imports some submodules lazily on attribute access), no properties, no
imports. Paths that need any of those stay unknown (``MISSING``), and the checks fall back to
comparing names.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

from grader.testing.analysis.opnames import canonical_op

MISSING: Any = object()

# Namespaces whose functions are operations (for the objects a bare name covers).
_OP_NAMESPACES = (
    "torch",
    "torch.nn.functional",
    "torch.special",
    "torch.linalg",
    "torch.fft",
    "torch.nn",
    "torch._C._VariableFunctions",
    "torch._C._nn",
    "torch._C._special",
    "torch._C._linalg",
    "torch._C._fft",
)


def _torch() -> Any:
    import torch  # the trusted side's torch: imported once, never the learner's file

    return torch


@functools.lru_cache(maxsize=8192)
def lookup(path: str) -> Any:
    """The object ``path`` names (``torch.nn.functional.softmax``; ``Tensor.x`` is
    ``torch.Tensor.x``), or MISSING."""
    parts = path.split(".")
    if parts[0] == "Tensor":
        obj: Any = _torch().Tensor
    elif parts[0] == "torch":
        obj = _torch()
    elif parts[0] in sys.modules and parts[0] in ("numpy", "math", "functools", "itertools"):
        obj = sys.modules[parts[0]]
    else:
        return MISSING
    for part in parts[1:]:
        obj = _member(obj, part)
        if obj is MISSING:
            return MISSING
    return obj


def _member(obj: Any, name: str) -> Any:
    if isinstance(obj, types.ModuleType):
        namespace = vars(obj)
        if name in namespace:
            return namespace[name]
        return sys.modules.get(f"{obj.__name__}.{name}", MISSING)
    if isinstance(obj, type):
        for klass in type.__dict__["__mro__"].__get__(obj):
            namespace = type.__dict__["__dict__"].__get__(klass)
            if name in namespace:
                return namespace[name]
        return MISSING
    return MISSING


def prefixes(path: str) -> list[tuple[str, Any]]:
    """Each prefix of ``path`` with the object it names, shortest first, while known."""
    parts = path.split(".")
    found = []
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        obj = lookup(prefix)
        if obj is MISSING:
            break
        found.append((prefix, obj))
    return found


@functools.lru_cache(maxsize=1)
def _operations() -> dict[str, set[int]]:
    """id() of every function torch exports, by canonical key of each name it is exported
    under (kept alive by torch's own namespaces)."""
    index: dict[str, set[int]] = {}
    torch = _torch()
    spaces: list[dict] = []
    for name in _OP_NAMESPACES:
        obj = lookup(name)
        if isinstance(obj, (types.ModuleType, type)):
            spaces.append(dict(vars(obj)))
    for klass in type.__dict__["__mro__"].__get__(torch.Tensor):
        spaces.append(dict(vars(klass)))
    for space in spaces:
        for name, obj in space.items():
            if isinstance(obj, types.ModuleType) or not isinstance(name, str) or not callable(obj):
                continue
            index.setdefault(canonical_op(name), set()).add(id(obj))
    return index


def exports_of(key: str) -> set[int]:
    """id() of the torch objects exported under a name whose canonical key is ``key``."""
    return _operations().get(key, set())


def is_module(obj: Any) -> bool:
    return isinstance(obj, types.ModuleType)
