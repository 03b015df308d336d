"""A stand-in for ``torch._dynamo``, which eager grading uses two plain calls of, at a second's
cost.

A grading on the meta device (most exercises have meta cases: the stand-in for a GPU on a
machine without one) makes torch import ``torch._dynamo``: torch's Python references (the meta
kernels of ``torch.arange`` and others) and every ``TorchDispatchMode`` (the grader's op
counter) are wrapped by ``torch._compile._disable_dynamo``, which calls
``torch._dynamo.disable(fn)`` the first time, and every optimizer step calls
``torch._dynamo.graph_break()``. Importing it costs about half a second beyond what meta ops need
anyway (sympy), in the grading process before it forks, or else in every worker and learner
child.

Outside of tracing (``torch.compile``, ``torch.export``), which grading never does, both calls
have plain answers: ``disable(fn)`` is ``fn`` as far as what it computes, and ``graph_break()``
does nothing (torch's own body is empty; only the tracer gives it a meaning). So
:func:`install` puts :class:`DynamoStandIn` in ``sys.modules``: it answers those two calls, and
anything else (another attribute, a submodule import, a learner's own ``torch.compile`` or
``torch.func``) loads the real module, which answers from then on, these two calls included. A
stand-in can be slower than the real module, never different. (Functions that torch wrapped
before the real module loaded keep the plain ``fn``: a learner who compiles code that calls
them sees dynamo trace into them, rather than skip them.)
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
from collections.abc import Callable
from typing import Any

NAME = "torch._dynamo"


class DynamoStandIn(types.ModuleType):
    """``sys.modules["torch._dynamo"]`` until something needs more than ``disable(fn)`` and
    ``graph_break()``. Code that took the stand-in (``import torch._dynamo`` ran before the real
    one loaded) keeps working through it."""

    _real: types.ModuleType | None = None

    def disable(
        self, fn: Callable[..., Any] | None = None, recursive: bool = True, **options: Any
    ) -> Any:
        if self._real is not None or fn is None or options.get("reason") is not None:
            # the decorator-factory and context-manager forms: the real one's objects
            return self._load().disable(fn, recursive, **options)
        return fn

    def graph_break(self, msg: str = "") -> None:
        if self._real is not None:
            self._real.graph_break(msg)

    def _load(self) -> types.ModuleType:
        return self._real if self._real is not None else load_real()

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)  # copy, pickle and inspect probe these: not a reason
        return getattr(self._load(), name)


def install() -> bool:
    """Put the stand-in in place where the real torch._dynamo is not loaded yet. Returns
    whether the stand-in is in place."""
    current = sys.modules.get(NAME)
    if current is not None:
        return isinstance(current, DynamoStandIn)
    import torch

    stand_in = package_stand_in(DynamoStandIn, NAME, load_real)
    if stand_in is None:
        return False
    sys.modules[NAME] = stand_in
    torch._dynamo = stand_in
    return True


def package_stand_in(
    cls: type[types.ModuleType], name: str, load: Callable[[], types.ModuleType]
) -> types.ModuleType | None:
    """A stand-in of class ``cls`` for the package ``name``, with the package's path (for the
    submodules its real ``__init__`` would import) and a :class:`SubmoduleFinder` that loads
    the real package first; None when there is no such package."""
    spec = importlib.util.find_spec(name)
    if spec is None or spec.submodule_search_locations is None:
        return None
    stand_in = cls(name, f"{name}, loaded when something needs more than eager")
    stand_in.__path__ = list(spec.submodule_search_locations)
    stand_in.__package__ = name
    # what the real package says of its file, held here so that a probe of it (every
    # ``inspect.getmodule``, which a traceback's source lookup runs over all of sys.modules)
    # loads nothing
    stand_in.__file__ = spec.origin
    SubmoduleFinder.add(name, cls, load)
    return stand_in


def load_real() -> types.ModuleType:
    """Replace the stand-in by the real torch._dynamo (a no-op once it is real)."""
    import torch

    current = sys.modules.get(NAME)
    if current is not None and not isinstance(current, DynamoStandIn):
        return current
    sys.modules.pop(NAME, None)
    torch.__dict__.pop("_dynamo", None)
    try:
        real = importlib.import_module(NAME)
    except BaseException:
        if current is not None:  # keep answering what the stand-in can
            sys.modules[NAME] = current
            torch._dynamo = current
        raise
    if current is not None:
        current._real = real
    return real


class SubmoduleFinder(importlib.abc.MetaPathFinder):
    """``import PACKAGE.X`` while a stand-in is ``PACKAGE``: load the real package first
    (which may import X itself), then let the import go on as if the package had always been
    real. Without this the package's ``__init__`` and the import of X would each run X."""

    def __init__(self, package: str, stand_in: type, load: Callable[[], types.ModuleType]) -> None:
        self.package = package
        self.stand_in = stand_in
        self.load = load

    def find_spec(
        self, fullname: str, path: Any = None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(self.package + ".") or not isinstance(
            sys.modules.get(self.package), self.stand_in
        ):
            return None
        self.load()
        existing = sys.modules.get(fullname)
        if existing is None:
            return None  # the real package did not import it: the usual finders will
        return importlib.machinery.ModuleSpec(fullname, _Loaded(existing))

    @classmethod
    def add(cls, package: str, stand_in: type, load: Callable[[], types.ModuleType]) -> None:
        """Put a finder for ``package`` first on ``sys.meta_path`` (once)."""
        if not any(isinstance(f, cls) and f.package == package for f in sys.meta_path):
            sys.meta_path.insert(0, cls(package, stand_in, load))


class _Loaded(importlib.abc.Loader):
    """Hands the import system a module that is already loaded, leaving it as it was."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.spec  # the import system set ours: put the real one back
