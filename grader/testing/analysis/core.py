"""The analysis of one learner file: what is reachable from a graded function, and how the
expressions in the code resolve.

The file is never imported or run: it is decoded, split into blocks (``intake``), and parsed
into scopes (``model``) as far as each question needs. Any failure on the way (a syntax error,
nesting too deep, an unexpected exception) makes :attr:`Analysis.problem` set, and every
question then raises :class:`~grader.testing.analysis.intake.Unanalysable`: the checks fail.
"""

from __future__ import annotations

import ast
import functools
import gc
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from grader.testing.analysis import dynamic
from grader.testing.analysis.intake import Problem, Unanalysable, decode, split
from grader.testing.analysis.model import (
    COMPUTED,
    UNDEFINED,
    UNKNOWN,
    Model,
    Scope,
    Site,
    chain,
    is_foreign_path,
    spelling,
)

_FUNCTIONS = ("function", "lambda")


@dataclass(frozen=True)
class Reach:
    """What can run when ``function`` is called: the scopes (functions, lambdas, classes)
    and the module-level bindings its code refers to, directly or through others."""

    function: str
    defined: bool
    scopes: tuple[Scope, ...]
    sites: tuple[Site, ...]
    ids: frozenset[int] = field(default=frozenset(), compare=False)

    def __contains__(self, scope: object) -> bool:
        return id(scope) in self.ids


class Analysis:
    def __init__(self, source: str | bytes):
        self.problem: Problem | None = None
        self.text = ""
        self.model: Model | None = None
        self._reach: dict[str, Reach] = {}
        self._computed: dict[tuple[str, int], list[Use]] = {}
        try:
            with self.guard():
                self.text = decode(source)
                self.model = Model(self.text, split(self.text))
        except Unanalysable:
            pass  # self.problem says why; every question raises it again

    @property
    def ok(self) -> bool:
        return self.problem is None

    @contextmanager
    def guard(self) -> Iterator[None]:
        """Run a question: any failure becomes a Problem (raised as Unanalysable) that every
        later question raises again. The cyclic garbage collector pauses meanwhile: the
        question allocates many objects that live on (AST nodes, scopes), and collecting
        over them again and again would make it two to three times slower."""
        if self.problem is not None:
            raise Unanalysable(self.problem)
        collecting = gc.isenabled()
        gc.disable()
        try:
            yield
        except Unanalysable as exc:
            self.problem = exc.problem
            raise
        except (RecursionError, MemoryError):
            self.problem = Problem(
                "too_deep",
                0,
                "Your file nests code so deeply that the grader cannot check it; write it with "
                "fewer levels of nesting.",
                "你的文件中代码嵌套得太深，评分器无法检查它；请减少嵌套层数。",
            )
            raise Unanalysable(self.problem) from None
        except Exception as exc:  # anything unexpected fails closed
            self.problem = Problem(
                "internal",
                0,
                f"The grader could not check your file ({type(exc).__name__}: {exc}).",
                f"评分器无法检查你的文件（{type(exc).__name__}: {exc}）。",
            )
            raise Unanalysable(self.problem) from exc
        finally:
            if collecting:
                gc.enable()

    def require(self) -> Model:
        if self.problem is not None or self.model is None:
            raise Unanalysable(self.problem or Problem("internal", 0, "", ""))
        return self.model

    def defines(self, name: str) -> bool:
        """Whether the file binds ``name`` at module level (statically)."""
        with self.guard():
            found = bool(self.require().sites(name))
        return found

    def reach(self, function: str) -> Reach:
        with self.guard():
            if function not in self._reach:
                self._reach[function] = _reach(self.require(), function)
        return self._reach[function]


# A worker grades up to 8 files; each is read by several checks. typed: a file read as Python
# reads it (PythonSource) and the same text read otherwise are analysed apart (the second is
# refused where it declares another encoding).
@functools.lru_cache(maxsize=16, typed=True)
def analyse(source: str | bytes) -> Analysis:
    """The analysis of a learner's file (cached: the checks of one grading share it)."""
    return Analysis(source)


def _reach(model: Model, function: str) -> Reach:
    roots = model.sites(function)
    work: list[Site | Scope] = list(reversed(roots))
    seen: set[int] = set()
    scopes: list[Scope] = []
    sites: list[Site] = []

    def refer(nodes: Iterable[ast.AST], scope: Scope) -> None:
        inner: set[int] = set()
        for node in nodes:
            if isinstance(node, ast.Attribute):
                inner.add(id(node.value))
                if id(node) in inner:
                    continue
                base, attrs = chain(node)
                if isinstance(base, ast.Name) and any(
                    is_foreign_path(v) for v in model.name_values(base.id, scope)
                ):
                    # `import submission; submission.helper(...)`: the learner's own module.
                    work.extend(model.sites(attrs[0]))
            elif isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Store):
                if any(w is model.module for w in model.binding_scopes(node.id, scope)):
                    work.extend(model.sites(node.id))
            elif id(node) in model.scope_of:
                work.append(model.scope_of[id(node)])

    while work:
        item = work.pop()
        if id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, Site):
            sites.append(item)
            refer(model.own_nodes(item.code), item.runs_in)
            if item.target is not None:
                work.append(item.target)
        else:
            scopes.append(item)
            refer(item.nodes, item)
            work.extend(item.children)
    return Reach(
        function,
        bool(roots),
        tuple(scopes),
        tuple(sites),
        frozenset(id(s) for s in scopes),
    )


@dataclass(frozen=True)
class Use:
    """A name in the code and what it resolved to."""

    name: str  # resolved (torch.nn.functional.softmax), or as written (x.softmax)
    line: int
    function: str | None  # the function, lambda or class it is in (None: module level)
    computed: bool = False  # reached through a computed name: nothing can be ruled out
    spelled: str = ""  # as written
    rule: str = ""  # the forbidden name it matched (forbidden_uses)


def expressions(
    model: Model, nodes: Iterable[ast.AST], scope: Scope
) -> list[tuple[ast.AST, frozenset]]:
    """The names in ``nodes`` (code of ``scope``) with what they may evaluate to: the
    outermost of each ``a.b.c``, names, imports, and calls and subscripts that reach a name
    through a string. Cached for a scope's own code while no new block is parsed."""
    if nodes is scope.nodes:
        cached = getattr(scope, "_expressions", None)
        if cached is not None and cached[0] == model.generation and cached[1] == len(nodes):
            return cached[2]
        found = list(_expressions(model, nodes, scope))
        scope._expressions = (model.generation, len(nodes), found)  # type: ignore[attr-defined]
        return found
    return list(_expressions(model, nodes, scope))


def _expressions(
    model: Model, nodes: Iterable[ast.AST], scope: Scope
) -> Iterator[tuple[ast.AST, frozenset]]:
    inner: set[int] = set()
    for node in nodes:
        if isinstance(node, (ast.Call, ast.Subscript)):
            handled = dynamic.handles(node, model, scope)
            inner.update(id(h) for h in handled)
            if handled and id(node) not in inner:
                yield node, model.values(node, scope)
            continue
        if id(node) in inner:
            if isinstance(node, ast.Attribute):
                inner.add(id(node.value))
            continue
        if isinstance(node, ast.Attribute):
            inner.add(id(node.value))
            yield node, model.values(node, scope)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            yield node, model.values(node, scope)
        elif isinstance(node, ast.Import):
            yield node, frozenset(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield (
                node,
                frozenset(
                    node.module if alias.name == "*" else f"{node.module}.{alias.name}"
                    for alias in node.names
                ),
            )


def annotation_nodes(nodes: Iterable[ast.AST]) -> set[int]:
    """id() of the nodes inside annotations (never run under ``from __future__ import
    annotations``, so a name there may be undefined)."""
    roots: list[ast.AST] = []
    for node in nodes:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            args = node.args
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
                if arg is not None and arg.annotation is not None:
                    roots.append(arg.annotation)
            if node.returns is not None:
                roots.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            roots.append(node.annotation)
    found: set[int] = set()
    for root in roots:
        stack = [root]
        while stack:
            current = stack.pop()
            found.add(id(current))
            stack.extend(ast.iter_child_nodes(current))
    return found


def computed_uses(analysis: Analysis, function: str) -> list[Use]:
    """Code that reaches names through strings, or changes imported modules, anywhere that
    counts for ``function`` (:func:`counted`), and globals its reachable functions read that
    the file never binds: about such code nothing can be ruled out."""
    model = analysis.require()
    model.ensure_mentioning(dynamic.WORDS)
    model.ensure(b for b in model.blocks if b.attr_store)
    reach = analysis.reach(function)
    key = (function, model.generation)
    if key in analysis._computed:
        return analysis._computed[key]
    found: list[Use] = []
    for nodes, scope in counted(analysis, function, ()):
        skip = annotation_nodes(nodes) if scope in reach and scope.kind in _FUNCTIONS else set()
        for node, values in expressions(model, nodes, scope):
            for value in values:
                if (
                    value == COMPUTED
                    or dynamic.is_dynamic_path(value)
                    or (
                        value == UNDEFINED
                        and scope in reach
                        and scope.kind in _FUNCTIONS
                        and id(node) not in skip
                    )
                ):
                    found.append(_use(node, _shown(node, value), scope, computed=True))
        found.extend(_module_changes(model, nodes, scope))
        found.extend(_code_changes(model, nodes, scope))
    analysis._computed[key] = _unique(found)
    return analysis._computed[key]


_SETTERS = {"builtins.setattr", "builtins.delattr"}


def setter_calls(model: Model, nodes: list[ast.AST], scope: Scope) -> list[ast.Call]:
    """The calls of setattr or delattr (under any name) in ``nodes``."""
    setters = {id(node) for node, values in expressions(model, nodes, scope) if values & _SETTERS}
    return [n for n in nodes if isinstance(n, ast.Call) and n.args and id(n.func) in setters]


def _module_changes(model: Model, nodes: list[ast.AST], scope: Scope) -> list[Use]:
    """Assignments to attributes of imported modules (``torch.softmax = ...``,
    ``setattr(torch, ...)``): they change what names mean."""
    found = []
    targets: list[tuple[ast.AST, ast.AST]] = [
        (node, node.value)
        for node in nodes
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
    ]
    targets += [(call, call.args[0]) for call in setter_calls(model, nodes, scope)]
    for node in nodes:  # vars(torch)["allclose"] = ..., torch.__dict__["softmax"] = ...
        if isinstance(node, ast.Subscript) and not isinstance(node.ctx, ast.Load):
            held = dynamic.subscript_values(model, node, scope, 0) or set()
            if any(_module_path(v) for v in held):
                found.append(_use(node, spelling(node), scope, computed=True))
    for node, target in targets:
        for value in model.values(target, scope):
            if (
                isinstance(value, str)
                and value not in (UNKNOWN, COMPUTED, UNDEFINED)
                and not value.startswith(UNKNOWN)
                and not _is_setting(node, value)
            ):
                found.append(_use(node, spelling(node), scope, computed=True))
                break
    return found


# Documented switches that reproducibility recipes set (``torch.backends.cudnn.deterministic =
# True``): they choose among kernels, they rename nothing, so setting one is not a change of what
# a name means.
_SETTINGS = frozenset(
    {
        "torch.backends.cudnn.deterministic",
        "torch.backends.cudnn.benchmark",
        "torch.backends.cudnn.enabled",
        "torch.backends.cudnn.allow_tf32",
        "torch.backends.cuda.matmul.allow_tf32",
    }
)


def _is_setting(node: ast.AST, value: str) -> bool:
    """``node`` assigns (never deletes) one of the documented switches in :data:`_SETTINGS`."""
    return (
        isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and f"{value}.{node.attr}" in _SETTINGS
    )


def _module_path(value: object) -> bool:
    """A value the model resolved to a named module or something in it."""
    return (
        isinstance(value, str)
        and value not in (UNKNOWN, COMPUTED, UNDEFINED)
        and not value.startswith(UNKNOWN)
    )


def _code_changes(model: Model, nodes: list[ast.AST], scope: Scope) -> list[Use]:
    """Assignments to dunder attributes (``pick.__code__ = other.__code__``,
    ``obj.__class__ = K``, ``f.__defaults__ = ...``): they change what code runs."""
    named: list[tuple[ast.AST, str | None]] = [
        (node, node.attr)
        for node in nodes
        if isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
    ]
    named += [
        (call, dynamic.literal(call.args[1]))
        for call in setter_calls(model, nodes, scope)
        if len(call.args) > 1
    ]
    return [
        _use(node, spelling(node), scope, computed=True)
        for node, name in named
        if name and name.startswith("__") and name.endswith("__")
    ]


def counted(
    analysis: Analysis, function: str, graded: Iterable[str]
) -> list[tuple[list[ast.AST], Scope]]:
    """The code that counts for ``function``: module-level code, every function, lambda and
    class reachable from it, and every other one that is not inside another graded function
    (a helper nobody calls is checked too: it might be called in a way the grader cannot
    see). Only parsed blocks: the callers parse the blocks their question needs."""
    model = analysis.require()
    reach = analysis.reach(function)
    others = set(graded) - {function}
    units: list[tuple[list[ast.AST], Scope]] = [(model.module.nodes, model.module)]
    for scope in model.scopes():
        if scope.kind == "module":
            continue
        if scope in reach or scope.top not in others:
            units.append((scope.nodes, scope))
    return units


def _shown(node: ast.AST, value: object) -> str:
    from grader.testing.analysis.model import spelling

    if value in (COMPUTED, UNDEFINED) or dynamic.is_dynamic_path(value):
        return spelling(node)
    return str(value)


def _use(node: ast.AST, name: str, scope: Scope, computed: bool = False, rule: str = "") -> Use:
    from grader.testing.analysis.model import spelling

    function = None if scope.kind == "module" else scope.name
    return Use(name, getattr(node, "lineno", 0), function, computed, spelling(node), rule)


def _unique(uses: list[Use]) -> list[Use]:
    seen: set[tuple[str, int, bool, str]] = set()
    result = []
    for use in sorted(uses, key=lambda u: (u.line, u.name)):
        key = (use.name, use.line, use.computed, use.rule)
        if key not in seen:
            seen.add(key)
            result.append(use)
    return result
