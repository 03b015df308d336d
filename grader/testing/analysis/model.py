"""The learner's file as scopes, binding sites and values, built block by block on demand.

* A :class:`Scope` is the module, a function, a lambda or a class body. Its *own code* is what
  runs in it: a function's body, but not the bodies of the functions defined inside it (those
  are child scopes), while their decorators, default arguments and annotations are the
  parent's code, because that is where Python runs them.
* A :class:`Site` is a place that binds a name (a ``def``, an assignment, an import, a ``for``
  target, ...), with the code that runs to produce the value.
* A *value* is what an expression may evaluate to, as far as the source shows: a dotted path
  from an import (``"torch.nn.functional"``; builtins are ``"builtins.map"``), a chain on
  something unknown (``"?.softmax"`` for ``x.softmax``), one of the learner's scopes (a
  function or class defined in the file), :data:`UNKNOWN`, or :data:`COMPUTED` when the code
  computes a name (``getattr(torch, name)``) so that nothing can be ruled out.

Values are flow-insensitive unions over every binding of a name, which over-approximates what
a name can hold: a check that finds nothing in the union finds nothing at run time.

Module-level names are bound lexically: the blocks that can bind ``helper`` are the blocks in
which the word ``helper`` occurs, and only those are parsed when ``helper`` is looked up.
"""

from __future__ import annotations

import ast
import builtins
import functools
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from grader.testing.analysis import dynamic, intake
from grader.testing.analysis.markers import COMPUTED, UNKNOWN

UNDEFINED = "<undefined>"  # a global the file never binds (it could only be injected)
_MAX_VALUES = 64
_MAX_DEPTH = 60
_MAX_PARTS = 24

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)
_MODULE_DUNDERS = {
    "__name__",
    "__file__",
    "__doc__",
    "__spec__",
    "__loader__",
    "__package__",
    "__builtins__",
    "__annotations__",
    "__path__",
    "__cached__",
    "__dict__",
    "__class__",  # the implicit cell of methods that use super()
    "__qualname__",
    "__module__",
}
_BUILTINS = frozenset(dir(builtins))


class Scope:
    def __init__(self, kind: str, node: ast.AST | None, parent: Scope | None, name: str):
        self.kind = kind  # module, function, lambda, class
        self.node = node
        self.parent = parent
        self.name = name  # for messages: "helper", "Model.forward", "<lambda>"
        self.params: dict[str, list[ast.expr]] = {}  # parameter -> its default (if any)
        self.sites: dict[str, list[Site]] = {}
        self.globals: set[str] = set()
        self.nonlocals: set[str] = set()
        self.comprehension_names: set[str] = set()
        self.children: list[Scope] = []
        self.nodes: list[ast.AST] = []  # its own code, flat
        self.stars: list[str] = []  # modules star-imported here
        self.top: str | None = None  # the module-level def or class it is in

    @property
    def line(self) -> int:
        return getattr(self.node, "lineno", 0)

    def __repr__(self) -> str:
        return f"<Scope {self.kind} {self.name}>"

    def enclosing_class(self) -> Scope | None:
        """The class whose method this is (for ``self.x``)."""
        if self.kind == "function" and self.parent is not None and self.parent.kind == "class":
            return self.parent
        return None

    def first_param(self) -> str | None:
        node = self.node
        if isinstance(node, _DEFS):
            args = node.args.posonlyargs + node.args.args
            if args:
                return args[0].arg
        return None


@dataclass(eq=False)
class Site:
    name: str
    node: ast.AST  # the binding statement or expression (its line is the binding's line)
    runs_in: Scope  # where its code runs
    code: list[ast.AST] = field(default_factory=list)  # what runs to bind it
    target: Scope | None = None  # the def, class or lambda it binds
    value: ast.expr | None = None  # the expression it binds the name to (None: unknown)
    path: str | None = None  # an import binds a path
    star_of: ast.expr | None = None  # for `for x in (a, b)`: the elements

    @property
    def line(self) -> int:
        return getattr(self.node, "lineno", 0)


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """Every node under ``node`` (iterative: learner code can nest deeper than Python's
    recursion limit)."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(list(ast.iter_child_nodes(current))))


def header(node: ast.AST) -> list[ast.AST]:
    """The parts of a def, lambda or class that run where it is defined."""
    parts: list[ast.AST] = []
    if isinstance(node, (*_DEFS, ast.ClassDef)):
        parts.extend(node.decorator_list)
    if isinstance(node, (*_DEFS, ast.Lambda)):
        args = node.args
        parts.extend(args.defaults)
        parts.extend(d for d in args.kw_defaults if d is not None)
        if isinstance(node, _DEFS):
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
                if arg is not None and arg.annotation is not None:
                    parts.append(arg.annotation)
            if node.returns is not None:
                parts.append(node.returns)
    if isinstance(node, ast.ClassDef):
        parts.extend(node.bases)
        parts.extend(k.value for k in node.keywords)
    return parts


def _params(node: ast.AST) -> dict[str, list[ast.expr]]:
    args = node.args  # type: ignore[attr-defined]
    params: dict[str, list[ast.expr]] = {}
    positional = args.posonlyargs + args.args
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for arg, default in zip(positional, defaults, strict=True):
        params[arg.arg] = [default] if default is not None else []
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params[arg.arg] = [default] if default is not None else []
    for arg in (args.vararg, args.kwarg):
        if arg is not None:
            params[arg.arg] = []
    return params


class Model:
    """The scopes of the blocks parsed so far; ``sites(name)`` parses what it needs."""

    def __init__(self, text: str, blocks: list[intake.Block]):
        self.text = text
        self.blocks = blocks
        self.module = Scope("module", None, None, "<module>")
        self.scope_of: dict[int, Scope] = {}  # id(def/lambda/class node) -> its scope
        self.parsed: set[int] = set()
        self._values: dict[tuple[int, str], frozenset] = {}
        self._node_values: dict[tuple[int, int], frozenset] = {}  # values() of whole expressions
        self._active: dict[tuple[int, str], frozenset] = {}
        self.generation = 0  # grows whenever blocks are parsed (values are recomputed)
        self._mentioned: set[str] = set()  # words whose blocks are all parsed
        self._bound: set[str] = set()  # names whose binding blocks are all parsed

    # -- parsing blocks -------------------------------------------------------------------

    def ensure(self, blocks: Iterable[intake.Block]) -> bool:
        """Parse these blocks (if not yet); True when something new was parsed."""
        new = False
        for block in blocks:
            if block.index in self.parsed:
                continue
            self.parsed.add(block.index)
            if block.tree is None:
                tree = intake.parse(self.text[block.start : block.end], block.line, shift=False)
                self._build(tree, block.line - 1)
                block.tree = tree
            else:
                self._build(block.tree)
            new = True
        if new:
            self.generation += 1
            self._values.clear()
            self._node_values.clear()
        return new

    def ensure_mentioning(self, words: set[str] | frozenset[str]) -> bool:
        """Parse every block in which one of ``words`` occurs."""
        new = set(words) - self._mentioned
        if not new:
            return False
        self._mentioned |= new
        return self.ensure(b for b in self.blocks if b.index not in self.parsed and b.mentions(new))

    def ensure_binding(self, name: str) -> bool:
        """Parse every block that may bind ``name`` at module level: it mentions the name in a
        position that can bind it (see :func:`may_bind`), or it imports or matches anything."""
        if name in self._bound or name in self._mentioned:
            return False
        self._bound.add(name)
        patterns = may_bind(name)
        wanted = {name}
        return self.ensure(
            b
            for b in self.blocks
            if b.index not in self.parsed
            and (
                b.star_import
                or (
                    b.mentions(wanted)
                    and (
                        not b.ascii
                        or "import" in b.words
                        or "case" in b.words
                        or any(p.search(self.text, b.start, b.end) for p in patterns)
                    )
                )
            )
        )

    def scopes(self) -> Iterator[Scope]:
        """Every scope parsed so far (module first)."""
        stack = [self.module]
        while stack:
            scope = stack.pop()
            yield scope
            stack.extend(reversed(scope.children))

    def sites(self, name: str) -> list[Site]:
        """The module-level bindings of ``name`` (parsing the blocks that may bind it)."""
        self.ensure_binding(name)
        return self.module.sites.get(name, [])

    # -- building scopes ------------------------------------------------------------------

    def _build(self, statements: list[ast.stmt], shift: int = 0) -> None:
        """Scopes and sites of these statements (their line numbers moved by ``shift``)."""
        work: list[tuple[ast.AST, Scope]] = [(s, self.module) for s in reversed(statements)]
        created: list[Scope] = []
        binders = _BINDERS
        while work:
            node, scope = work.pop()
            scope.nodes.append(node)
            if shift:
                _shift(node, shift)
            if isinstance(node, _SCOPES):
                if shift:
                    _shift_signature(node, shift)
                child = self._child(node, scope)
                created.append(child)
                for part in reversed(header(node)):
                    work.append((part, scope))
                body = [node.body] if isinstance(node, ast.Lambda) else node.body
                for part in reversed(body):
                    work.append((part, child))
                continue
            if type(node) in binders:
                self._bindings(node, scope)
            for part in reversed(list(ast.iter_child_nodes(node))):
                work.append((part, scope))
        for scope in created:
            self._move_declared(scope)

    def _child(self, node: ast.AST, scope: Scope) -> Scope:
        if isinstance(node, ast.Lambda):
            kind, name = "lambda", f"<lambda> (line {node.lineno})"
        elif isinstance(node, ast.ClassDef):
            kind, name = "class", node.name
        else:
            kind, name = "function", node.name  # type: ignore[attr-defined]
        if scope.kind != "module" and kind != "lambda":
            name = f"{scope.name}.{name}" if scope.kind == "class" else f"{name} in {scope.name}"
        elif scope.kind != "module":
            name = f"{name} in {scope.name}"
        child = Scope(kind, node, scope, name)
        if isinstance(node, (*_DEFS, ast.Lambda)):
            child.params = _params(node)
        child.top = scope.top if scope.kind != "module" else getattr(node, "name", None)
        scope.children.append(child)
        self.scope_of[id(node)] = child
        if not isinstance(node, ast.Lambda):
            self._add(scope, Site(node.name, node, scope, header(node), target=child))  # type: ignore[attr-defined]
        return child

    def _add(self, scope: Scope, site: Site) -> None:
        scope.sites.setdefault(site.name, []).append(site)

    def _bindings(self, node: ast.AST, scope: Scope) -> None:
        if isinstance(node, ast.Global):
            scope.globals.update(node.names)
        elif isinstance(node, ast.Nonlocal):
            scope.nonlocals.update(node.names)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self._target(target, node.value, scope, node)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            value = node.value if isinstance(node, ast.AnnAssign) else None
            if isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                self._add(scope, Site(node.target.id, node, scope, [node]))
            elif value is not None or isinstance(node, ast.AnnAssign):
                self._target(node.target, value, scope, node)
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            self._target(node.target, None, scope, node, code=[node.iter], elements=node.iter)
        elif isinstance(node, ast.comprehension):
            for name in walk(node.target):
                if isinstance(name, ast.Name):
                    scope.comprehension_names.add(name.id)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    self._target(item.optional_vars, None, scope, node, code=[item.context_expr])
        elif isinstance(node, ast.NamedExpr):
            self._target(node.target, node.value, scope, node)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            self._add(scope, Site(node.name, node, scope))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._add(scope, Site(alias.asname, node, scope, path=alias.name))
                else:
                    top = alias.name.split(".")[0]
                    self._add(scope, Site(top, node, scope, path=top))
        elif isinstance(node, ast.ImportFrom):
            module = node.module or ""
            for alias in node.names:
                if alias.name == "*":
                    scope.stars.append(module if node.level == 0 else UNKNOWN)
                    continue
                path = f"{module}.{alias.name}" if node.level == 0 and module else None
                self._add(scope, Site(alias.asname or alias.name, node, scope, path=path))
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            self._add(scope, Site(node.name, node, scope))
        elif isinstance(node, ast.MatchMapping) and node.rest:
            self._add(scope, Site(node.rest, node, scope))

    def _target(
        self,
        target: ast.AST,
        value: ast.expr | None,
        scope: Scope,
        statement: ast.AST,
        code: list[ast.AST] | None = None,
        elements: ast.expr | None = None,
    ) -> None:
        code = [statement] if code is None else code
        if isinstance(target, ast.Name):
            self._add(scope, Site(target.id, statement, scope, code, value=value, star_of=elements))
        elif isinstance(target, (ast.Tuple, ast.List)):
            paired = (
                isinstance(value, (ast.Tuple, ast.List))
                and len(value.elts) == len(target.elts)
                and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
            )
            for i, element in enumerate(target.elts):
                self._target(element, value.elts[i] if paired else None, scope, statement, code)  # type: ignore[union-attr]
        elif isinstance(target, ast.Starred):
            self._target(target.value, None, scope, statement, code)

    def _move_declared(self, scope: Scope) -> None:
        """Bindings of names declared ``global`` belong to the module; ``nonlocal`` ones to
        the enclosing function that binds them."""
        for name in list(scope.sites):
            if name in scope.globals:
                for site in scope.sites.pop(name):
                    self._add(self.module, site)
            elif name in scope.nonlocals:
                outer = scope.parent
                while outer is not None and (outer.kind == "class" or name not in outer.sites):
                    if outer.kind == "module":
                        break
                    outer = outer.parent
                target = outer if outer is not None and outer.kind != "module" else self.module
                for site in scope.sites.pop(name):
                    self._add(target, site)

    # -- names and values -----------------------------------------------------------------

    def binding_scopes(self, name: str, scope: Scope) -> list[Scope]:
        """The scopes a name read in ``scope`` may be bound in (the module last)."""
        found: list[Scope] = []
        current: Scope | None = scope
        first = True
        while current is not None and current.kind != "module":
            if current.kind == "class":
                if first and name in current.sites:
                    found.append(current)  # a class body reads its own names, else globals
                current = current.parent
                first = False
                continue
            if name in current.globals:
                current = None
                break
            if name not in current.nonlocals and (name in current.sites or name in current.params):
                found.append(current)
                return found
            current = current.parent
            first = False
        found.append(self.module)
        return found

    def is_comprehension_name(self, name: str, scope: Scope) -> bool:
        current: Scope | None = scope
        while current is not None:
            if name in current.comprehension_names:
                return True
            current = current.parent
        return False

    def name_values(self, name: str, scope: Scope, depth: int = 0) -> frozenset:
        """What ``name`` read in ``scope`` may hold."""
        result: set = set()
        if self.is_comprehension_name(name, scope):
            result.add(UNKNOWN)
        for where in self.binding_scopes(name, scope):
            result |= self._scope_name_values(name, where, depth, comprehension=bool(result))
        return frozenset(result)

    def _scope_name_values(self, name: str, where: Scope, depth: int, comprehension: bool) -> set:
        if where.kind == "module":
            self.ensure_binding(name)
        key = (id(where), name)
        if key in self._values:
            return set(self._values[key])
        if key in self._active:
            return set(self._active[key])
        generation = self.generation
        self._active[key] = frozenset()
        try:
            result: set = set()
            for _ in range(3):  # a cycle (a = a.x) reads a partial result: repeat until stable
                for site in where.sites.get(name, []):
                    result |= self.site_values(site, depth + 1)
                if name in where.params:
                    result.add(UNKNOWN)
                    for default in where.params[name]:
                        result |= self.values(default, where.parent or self.module, depth + 1)
                if where.kind == "module" and not where.sites.get(name):
                    result |= self._global_fallback(name, comprehension)
                if frozenset(result) == self._active[key]:
                    break
                self._active[key] = frozenset(result)
            if len(result) > _MAX_VALUES:
                result = {COMPUTED}
        finally:
            del self._active[key]
        if generation == self.generation:
            self._values[key] = frozenset(result)
        return result

    def _global_fallback(self, name: str, comprehension: bool) -> set:
        result: set = set()
        for star in self.module.stars:
            result.add(f"{star}.{name}" if star != UNKNOWN else UNKNOWN)
        if result:
            return result
        if name in _BUILTINS:
            return {f"builtins.{name}"}
        if name in _MODULE_DUNDERS or comprehension:
            return {UNKNOWN}
        return {UNDEFINED}

    def site_values(self, site: Site, depth: int = 0) -> set:
        if site.target is not None:
            if (
                isinstance(site.target.node, (*_DEFS, ast.ClassDef))
                and site.target.node.decorator_list
            ):
                return {site.target, UNKNOWN}  # a decorator may return anything
            return {site.target}
        if site.path is not None:
            return {site.path}
        if site.value is not None:
            return set(self.values(site.value, site.runs_in, depth))
        if site.star_of is not None and isinstance(site.star_of, (ast.Tuple, ast.List, ast.Set)):
            result: set = set()
            for element in site.star_of.elts:
                result |= self.values(element, site.runs_in, depth)
            return result
        return {UNKNOWN}

    def values(self, expr: ast.AST, scope: Scope, depth: int = 0) -> frozenset:
        """What ``expr`` (code of ``scope``) may evaluate to."""
        if depth == 0:
            key = (id(expr), id(scope))
            known = self._node_values.get(key)
            if known is None:
                known = self._node_values[key] = self._values_of(expr, scope, 0)
            return known
        return self._values_of(expr, scope, depth)

    def _values_of(self, expr: ast.AST, scope: Scope, depth: int) -> frozenset:
        if depth > _MAX_DEPTH:
            return frozenset({COMPUTED})
        if isinstance(expr, ast.Name):
            return self.name_values(expr.id, scope, depth + 1)
        if isinstance(expr, ast.Attribute):
            base, attrs = chain(expr)
            owner = scope.enclosing_class()
            if owner is not None and isinstance(base, ast.Name) and base.id == scope.first_param():
                # self.method: the learner's own method when the class (or a base class of
                # the file) defines it; an attribute assigned elsewhere is judged there.
                members = self.class_members(owner, attrs[0])
                if members:
                    found: set = set()
                    for site in members:
                        found |= self.site_values(site, depth + 1)
                    if len(attrs) > 1:
                        found = self.extend(found, attrs[1:], scope)
                    return frozenset(found)
            return frozenset(self.extend(self.values(base, scope, depth + 1), attrs, scope))
        if isinstance(expr, ast.Call):
            return self.call_values(expr, scope, depth + 1)
        if isinstance(expr, ast.Subscript):
            return self.subscript_values(expr, scope, depth + 1)
        if isinstance(expr, ast.IfExp):
            return self.values(expr.body, scope, depth + 1) | self.values(
                expr.orelse, scope, depth + 1
            )
        if isinstance(expr, ast.BoolOp):
            result: frozenset = frozenset()
            for value in expr.values:
                result |= self.values(value, scope, depth + 1)
            return result
        if isinstance(expr, ast.NamedExpr):
            return self.values(expr.value, scope, depth + 1)
        if isinstance(expr, ast.Lambda):
            return frozenset({self.scope_of[id(expr)]})
        if isinstance(expr, ast.Starred):
            return self.values(expr.value, scope, depth + 1) | {UNKNOWN}
        return frozenset({UNKNOWN})

    def extend(self, values: Iterable, attrs: list[str], scope: Scope) -> set:
        """The values of ``value.a.b`` for each value."""
        result: set = set()
        for value in values:
            if isinstance(value, Scope):
                result |= self._scope_attribute(value, attrs, scope)
            elif value in (COMPUTED, UNDEFINED):
                result.add(value)
            else:
                parts = value.split(".") + attrs
                if len(parts) > _MAX_PARTS:
                    parts = [UNKNOWN, *parts[-_MAX_PARTS:]]
                result.add(".".join(parts))
        return result

    def _scope_attribute(self, owner: Scope, attrs: list[str], scope: Scope) -> set:
        first, rest = attrs[0], attrs[1:]
        found: set = set()
        if owner.kind == "class":
            for site in self.class_members(owner, first):
                found |= self.site_values(site, 1)
        if not found:
            return {".".join([UNKNOWN, *attrs])}
        return self.extend(found, rest, scope) if rest else found

    def class_members(self, owner: Scope, name: str) -> list[Site]:
        """The bindings of ``name`` in a class of the file or in its bases defined in the file."""
        seen: set[int] = set()
        todo = [owner]
        found: list[Site] = []
        while todo:
            cls = todo.pop()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            found.extend(cls.sites.get(name, []))
            for base in cls.node.bases:  # type: ignore[union-attr]
                for value in self.values(base, cls.parent or self.module, 1):
                    if isinstance(value, Scope) and value.kind == "class":
                        todo.append(value)
        return found

    def call_values(self, call: ast.Call, scope: Scope, depth: int) -> frozenset:
        special = dynamic.call_values(self, call, scope, depth)
        if special is not None:
            return frozenset(special)
        return frozenset({UNKNOWN})

    def subscript_values(self, node: ast.Subscript, scope: Scope, depth: int) -> frozenset:
        special = dynamic.subscript_values(self, node, scope, depth)
        if special is not None:
            return frozenset(special)
        return frozenset({UNKNOWN})

    # -- own code -------------------------------------------------------------------------

    def own_nodes(self, code: Iterable[ast.AST]) -> Iterator[ast.AST]:
        """The nodes of ``code`` that run in the same scope: a nested def's header, not its
        body."""
        stack = list(reversed(list(code)))
        while stack:
            node = stack.pop()
            yield node
            if isinstance(node, _SCOPES):
                stack.extend(reversed(header(node)))
            else:
                stack.extend(reversed(list(ast.iter_child_nodes(node))))


_BINDERS = {
    ast.Global,
    ast.Nonlocal,
    ast.Assign,
    ast.AnnAssign,
    ast.AugAssign,
    ast.For,
    ast.AsyncFor,
    ast.comprehension,
    ast.With,
    ast.AsyncWith,
    ast.NamedExpr,
    ast.ExceptHandler,
    ast.Import,
    ast.ImportFrom,
    ast.MatchAs,
    ast.MatchStar,
    ast.MatchMapping,
}


def _shift(node: ast.AST, shift: int) -> None:
    line = getattr(node, "lineno", None)
    if line is not None:
        node.lineno = line + shift  # type: ignore[attr-defined]
        end = getattr(node, "end_lineno", None)
        if end is not None:
            node.end_lineno = end + shift  # type: ignore[attr-defined]


def _shift_signature(node: ast.AST, shift: int) -> None:
    """The parts of a def or class that _build does not visit: parameters, class keywords."""
    if isinstance(node, ast.ClassDef):
        for keyword in node.keywords:
            _shift(keyword, shift)
        return
    args = node.args  # type: ignore[attr-defined]
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if arg is not None:
            _shift(arg, shift)


_GAP = r"(?:\s|\\)*"


@functools.lru_cache(maxsize=4096)
def may_bind(name: str) -> tuple[re.Pattern[str], ...]:
    """Where a text may bind ``name`` outside an import or a ``match`` (over-approximated: a
    text without a match cannot): ``name =`` and augmented assignments, ``name:`` (an
    annotation, ``:=``), a place in a tuple, list or starred target (``name,``, ``name)``,
    ``name]``, ``*name``), the last ``for`` target (``name in``), ``as name``, ``def name``,
    ``class name``. A ``global`` declaration binds nothing by itself."""
    n = re.escape(name)
    # Each starts with a literal, which Python's regex engine finds fast.
    return (
        re.compile(rf"{n}{_GAP}(?:(?:[-+*/%@&|^]|<<|>>|\*\*|//)?=(?!=)|:|[,)\]]|in\b)"),
        re.compile(rf"def{_GAP}{n}\b"),
        re.compile(rf"class{_GAP}{n}\b"),
        re.compile(rf"as{_GAP}{n}\b"),
        re.compile(rf"\*{_GAP}{n}\b"),
    )


def chain(node: ast.Attribute) -> tuple[ast.expr, list[str]]:
    """``a.b.c`` as (``a``, ["b", "c"]), iteratively."""
    attrs: list[str] = []
    current: ast.expr = node
    while isinstance(current, ast.Attribute):
        attrs.append(current.attr)
        current = current.value
    attrs.reverse()
    return current, attrs


def spelling(node: ast.AST) -> str:
    """How the learner wrote a name: ``F.softmax``, ``x.softmax``, ``(...).softmax``."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base, attrs = chain(node)
        head = base.id if isinstance(base, ast.Name) else "(...)"
        return ".".join([head, *attrs])
    if isinstance(node, ast.Call):
        return spelling(node.func) + "(...)"
    if isinstance(node, ast.Subscript):
        return spelling(node.value) + "[...]"
    if isinstance(node, ast.Import):
        return "import " + ", ".join(a.name for a in node.names)
    if isinstance(node, ast.ImportFrom):
        return f"from {node.module} import " + ", ".join(a.name for a in node.names)
    return "(...)"


_LIBRARIES = {"torch", "numpy", "scipy", "pandas", "matplotlib", "sklearn", "PIL", "einops"}


@functools.lru_cache(maxsize=1)
def known_top_modules() -> frozenset[str]:
    """Modules that are surely not the learner's own file: the standard library, common
    libraries and what the trusted side has imported. An import of anything else may be the
    learner's file imported under its module name (its attributes are then the file's names).
    Calling a library "foreign" only makes the analysis more careful, never less."""
    names = set(sys.stdlib_module_names) | set(sys.builtin_module_names) | _LIBRARIES
    names |= {name.partition(".")[0] for name in list(sys.modules)}
    names.discard("submission")
    return frozenset(names)


def is_foreign_path(value: object) -> bool:
    """A path rooted at an import that is neither the standard library nor installed."""
    if not isinstance(value, str) or value in (UNKNOWN, COMPUTED, UNDEFINED):
        return False
    root = value.split(".", 1)[0]
    return root not in (UNKNOWN, "builtins") and root not in known_top_modules()
