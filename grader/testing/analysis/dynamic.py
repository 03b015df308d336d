"""Code that reaches names through strings: ``getattr(torch, "softmax")``, ``__import__``,
``importlib.import_module``, ``operator.attrgetter``, ``globals()[...]``, ``vars(m)[...]``,
``m.__dict__[...]``, ``sys.modules[...]``, ``eval``/``exec``/``compile``.

With a literal string the name is resolved like any other (``getattr(torch, "softmax")`` is
``torch.softmax``); with a computed one the value is :data:`~model.COMPUTED`: nothing can be
ruled out about what it reaches.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import Any, Protocol

from grader.testing.analysis.markers import COMPUTED, UNKNOWN


class ScopeView(Protocol):
    """A scope of the name model: only its kind matters here (module, function, lambda,
    class)."""

    kind: str


class Resolver(Protocol):
    """What this module asks of the name model (:class:`~grader.testing.analysis.model.Model`).
    The model calls into this module for the calls and subscripts that reach names through
    strings; this module never imports the model, so the two are no circle."""

    @property
    def module(self) -> Any: ...

    def values(self, expr: ast.AST, scope: Any, depth: int = 0) -> frozenset: ...

    def extend(self, values: Iterable, attrs: list[str], scope: Any) -> set: ...

    def name_values(self, name: str, scope: Any, depth: int = 0) -> frozenset: ...


GETATTR = {"builtins.getattr", "inspect.getattr_static"}
IMPORTERS = {
    "builtins.__import__",
    "importlib.import_module",
    "importlib.__import__",
    "pkgutil.resolve_name",
    "pydoc.locate",
}
# Code that runs or rebuilds code from data (names inside bytes, files or code objects).
CODE = {
    "builtins.eval",
    "builtins.exec",
    "builtins.compile",
    "pickle.loads",
    "pickle.load",
    "pickle.Unpickler",
    "_pickle.loads",
    "_pickle.load",
    "marshal.loads",
    "marshal.load",
    "types.FunctionType",
    "types.LambdaType",
    "types.CodeType",
    "runpy.run_path",
    "runpy.run_module",
    "importlib.util.spec_from_file_location",
    "importlib.util.module_from_spec",
    "importlib.machinery.SourceFileLoader",
}
NAMESPACES = {"builtins.globals", "builtins.locals", "builtins.vars"}
# Code that runs where no call shows it: on every line, or when a signal comes.
HOOKS = {
    "sys.settrace",
    "sys.setprofile",
    "threading.settrace",
    "threading.setprofile",
    "threading.settrace_all_threads",
    "threading.setprofile_all_threads",
    "signal.signal",
}
GETTERS = {"operator.attrgetter", "operator.methodcaller"}
# Names whose mere use (not through a literal) means code is reached through strings.
DYNAMIC = GETATTR | IMPORTERS | CODE | NAMESPACES | GETTERS | HOOKS
# Words that occur in any such code: a block without them cannot reach a name through a string.
WORDS = frozenset(
    {
        "getattr",
        "getattr_static",
        "__getattribute__",
        "__getattr__",
        "__import__",
        "import_module",
        "importlib",
        "resolve_name",
        "locate",
        "eval",
        "exec",
        "compile",
        "globals",
        "locals",
        "vars",
        "__dict__",
        "modules",
        "attrgetter",
        "methodcaller",
        "__builtins__",
        "builtins",
        "__subclasses__",
        "pickle",
        "_pickle",
        "marshal",
        "FunctionType",
        "LambdaType",
        "CodeType",
        "runpy",
        "spec_from_file_location",
        "module_from_spec",
        "SourceFileLoader",
        "settrace",
        "setprofile",
        "settrace_all_threads",
        "setprofile_all_threads",
        "signal",
    }
)


def literal(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def is_dynamic_path(value: object) -> bool:
    """A value that can only be used to reach names through strings."""
    if not isinstance(value, str):
        return False
    if value in DYNAMIC:
        return True
    parts = value.split(".")
    return "__dict__" in parts or value.startswith("sys.modules") or "__subclasses__" in parts


def call_values(model: Resolver, call: ast.Call, scope: ScopeView, depth: int) -> set | None:
    """The values of a call that reaches a name through a string, else None."""
    funcs = model.values(call.func, scope, depth)
    result: set = set()
    special = False
    for func in funcs:
        if not isinstance(func, str):
            continue
        if func in GETATTR and call.args:
            special = True
            name = literal(call.args[1]) if len(call.args) > 1 else None
            if name is None:
                result.add(COMPUTED)
            else:
                result |= model.extend(model.values(call.args[0], scope, depth), [name], scope)
        elif func.endswith(".__getattribute__") or func.endswith(".__getattr__"):
            special = True
            owner = func.rsplit(".", 1)[0]
            if owner in ("builtins.object", "builtins.type") and len(call.args) == 2:
                target, name = call.args[0], literal(call.args[1])
                values: set[object] | frozenset[object] = model.values(target, scope, depth)
            else:
                name = literal(call.args[0]) if call.args else None
                values = (
                    model.values(call.func.value, scope, depth)
                    if isinstance(call.func, ast.Attribute)
                    else {UNKNOWN}
                )
            if name is None:
                result.add(COMPUTED)
            else:
                result |= model.extend(values, [name], scope)
        elif func in IMPORTERS:
            special = True
            name = literal(call.args[0]) if call.args else None
            if name is None:
                result.add(COMPUTED)
            elif name.startswith("."):
                result.add(UNKNOWN)
            elif func == "builtins.__import__" and not _has_fromlist(call):
                result.add(name.split(".")[0])
            else:
                result.add(name.replace(":", "."))
        elif _own_locals(func, call, scope):
            # a function's own locals (a debug ``print(locals())``): a snapshot of values
            # the function already names, so nothing new is reached through it
            special = True
            result.add(UNKNOWN)
        elif func in CODE or func in NAMESPACES or func in HOOKS:
            special = True
            result.add(COMPUTED)
        elif func in ("sys.modules.get", "sys.modules.__getitem__"):
            special = True
            name = literal(call.args[0]) if call.args else None
            result.add(COMPUTED if name is None else name)
        elif func.endswith(".__dict__.get") or func.endswith(".__dict__.__getitem__"):
            special = True
            name = literal(call.args[0]) if call.args else None
            holder = (
                call.func.value.value
                if isinstance(call.func, ast.Attribute)
                and isinstance(call.func.value, ast.Attribute)
                else None
            )
            if name is None or not isinstance(holder, ast.expr):
                result.add(COMPUTED)
            else:
                result |= model.extend(model.values(holder, scope, depth), [name], scope)
        elif func in GETTERS:
            special = True
            name = literal(call.args[0]) if call.args else None
            result.add(COMPUTED if name is None else f"{UNKNOWN}.{name}")
    return result if special else None


def _own_locals(func: str, call: ast.Call, scope: ScopeView) -> bool:
    """``locals()`` or ``vars()`` without arguments inside a function or lambda (at module
    level they are the module's globals, which hold ``__builtins__``)."""
    if scope.kind not in ("function", "lambda") or call.args or call.keywords:
        return False
    return func in ("builtins.locals", "builtins.vars")


def _has_fromlist(call: ast.Call) -> bool:
    fromlist = call.args[3] if len(call.args) > 3 else None
    for keyword in call.keywords:
        if keyword.arg == "fromlist":
            fromlist = keyword.value
    if fromlist is None:
        return False
    return not (isinstance(fromlist, (ast.Tuple, ast.List)) and not fromlist.elts) and not (
        isinstance(fromlist, ast.Constant) and not fromlist.value
    )


def subscript_values(
    model: Resolver, node: ast.Subscript, scope: ScopeView, depth: int
) -> set | None:
    """The values of ``globals()["x"]``, ``vars(m)["x"]``, ``m.__dict__["x"]``,
    ``sys.modules["m"]``; None for any other subscript."""
    base = node.value
    key = literal(node.slice)
    if isinstance(base, ast.Call):
        funcs = {f for f in model.values(base.func, scope, depth) if isinstance(f, str)}
        if funcs & NAMESPACES:
            if key is None:
                return {COMPUTED}
            if base.args:  # vars(m)["x"]
                return model.extend(model.values(base.args[0], scope, depth), [key], scope)
            where = model.module if "builtins.globals" in funcs else scope
            return set(model.name_values(key, where, depth))
    if isinstance(base, ast.Attribute) and base.attr == "__dict__":
        if key is None:
            return {COMPUTED}
        return model.extend(model.values(base.value, scope, depth), [key], scope)
    values = model.values(base, scope, depth)
    if "sys.modules" in values:
        return {COMPUTED} if key is None else {key}
    return None


def handles(node: ast.AST, model: Resolver, scope: ScopeView) -> list[ast.AST]:
    """The parts of a special call or subscript that are resolved through it (so that they
    are not judged on their own: ``getattr`` itself, the ``m.__dict__`` of ``m.__dict__["x"]``)."""
    if isinstance(node, ast.Call):
        if call_values(model, node, scope, 0) is not None:
            return [node.func]
    elif isinstance(node, ast.Subscript) and subscript_values(model, node, scope, 0) is not None:
        inner: list[ast.AST] = [node.value]
        if isinstance(node.value, ast.Call):
            inner.append(node.value.func)
        return inner
    return []
