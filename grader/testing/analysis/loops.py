"""Python-level loops in the code reachable from a graded function.

A loop is any of: ``for``, ``async for``, ``while``, a list, set or dict comprehension or a
generator expression, ``yield from``, a use of ``map``, ``filter``, ``functools.reduce``, any
``itertools`` function or two-argument ``iter(f, sentinel)`` (used or only referred to:
``f = map`` counts), any other call that is handed a callable and is not known to vectorise
(``sorted(x, key=f)``, ``t.apply_(f)``, ``np.vectorize(f)``: :mod:`.callbacks` has the rule),
a reachable class of the file that Python can iterate (it defines
``__iter__``, ``__next__`` or ``__getitem__``), and recursion: a reachable function that calls
itself, directly or through others. Only functions and lambdas count (a loop in module-level
code or in a class body runs once, at import). Code that reaches names through strings counts
as a loop that cannot be ruled out.

Iterating over a tensor without any of these (``sum(x)``, ``list(x)``, ``[*x]``,
``sorted(x)``) has no loop in the source: the dynamic operation count catches it.

With ``growth="logarithmic"``, loops that visibly run O(log n) times are allowed, because a
correct Hillis-Steele scan or a doubling search needs them:

* ``while`` loops whose condition compares a variable that the body doubles or halves by a
  constant and assigns nowhere else (``while step < n: ...; step *= 2``, ``<<= 1``,
  ``step = 2 * step``, ``//= 2``, ``>>= 1``);
* ``for`` loops and comprehensions over ``range(...)`` whose bounds call ``math.log2``,
  ``math.log``, ``math.log10``, ``numpy.log2`` or ``.bit_length()``
  (``for k in range(n.bit_length())``, ``range(math.ceil(math.log2(n)))``), or over a tuple or
  list of constants.

Everything else still fails: the dynamic operation count (``assert_op_growth``) measures the
growth precisely; this is its static backstop.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from grader.notebooks import line_en, line_zh
from grader.testing.analysis.callbacks import handed_on
from grader.testing.analysis.core import Analysis, analyse, computed_uses, expressions
from grader.testing.analysis.model import Model, Scope, chain

GROWTHS = ("constant", "logarithmic")
_ITERATION = {"builtins.map", "builtins.filter", "functools.reduce"}
# A class of the file that Python can iterate over loops without a loop in the source
# (list(obj) calls __next__ or __getitem__ until they stop).
_ITERATION_METHODS = ("__iter__", "__next__", "__getitem__", "__anext__", "__aiter__")
_LOG_CALLS = {"math.log2", "math.log", "math.log10", "numpy.log2", "numpy.log", "numpy.log10"}
_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
_KINDS = {
    ast.For: "for loop",
    ast.AsyncFor: "async for loop",
    ast.While: "while loop",
    ast.ListComp: "list comprehension",
    ast.SetComp: "set comprehension",
    ast.DictComp: "dict comprehension",
    ast.GeneratorExp: "generator expression",
}
_KINDS_ZH = {
    "for loop": "for 循环",
    "async for loop": "async for 循环",
    "while loop": "while 循环",
    "list comprehension": "列表推导式",
    "set comprehension": "集合推导式",
    "dict comprehension": "字典推导式",
    "generator expression": "生成器表达式",
    "recursion": "递归",
    "yield from": "yield from",
    "iteration protocol": "迭代协议",
    "computed name": "计算出的名字",
    "higher-order call": "高阶调用",
}


@dataclass(frozen=True)
class Loop:
    kind: str  # "for loop", "list comprehension", "map", "itertools.accumulate", "recursion",
    # "iteration protocol", "yield from", "computed name", "higher-order call"
    line: int
    function: str  # the function or lambda it is in
    detail: str = ""  # for recursion: "f -> g -> f"; for a computed name: how it was written;
    # for a higher-order call: the call ("sorted")

    def describe(self, lang: str = "en") -> str:
        kind = self.kind
        if lang == "zh":
            kind = _KINDS_ZH.get(kind, kind)
            where = f"{line_zh(self.line)}，{self.function} 中"
            detail = f"：{self.detail}" if self.detail else ""
            return f"{where}的{kind}{detail}"
        detail = f": {self.detail}" if self.detail else ""
        return f"{line_en(self.line)}, a {kind} in {self.function}{detail}"


def loops_in(source: str | bytes | Analysis, function: str, growth: str = "constant") -> list[Loop]:
    """The loops reachable from ``function`` (see the module docstring), sorted by line.
    Raises Unanalysable when the file cannot be analysed."""
    if growth not in GROWTHS:
        raise ValueError(f"growth must be one of {GROWTHS}, not {growth!r}")
    analysis = source if isinstance(source, Analysis) else analyse(source)
    with analysis.guard():
        model = analysis.require()
        reach = analysis.reach(function)
        found: list[Loop] = []
        functions = [s for s in reach.scopes if s.kind in ("function", "lambda")]
        for scope in functions:
            found.extend(_syntax_loops(model, scope, growth))
            found.extend(_helper_loops(model, scope))
        found.extend(_recursion(model, functions))
        for scope in reach.scopes:
            if scope.kind == "class":
                for method in _ITERATION_METHODS:
                    for site in scope.sites.get(method, []):
                        found.append(Loop("iteration protocol", site.line, scope.name, method))
        for use in computed_uses(analysis, function):
            found.append(
                Loop("computed name", use.line, use.function or "module-level code", use.spelled)
            )
        unique = {(loop.line, loop.kind, loop.function, loop.detail): loop for loop in found}
        result = sorted(unique.values(), key=lambda loop: (loop.line, loop.kind))
    return result


def _syntax_loops(model: Model, scope: Scope, growth: str) -> list[Loop]:
    found = []
    for node in scope.nodes:
        if isinstance(node, ast.YieldFrom):
            found.append(Loop("yield from", getattr(node, "lineno", 0), scope.name))
            continue
        kind = _KINDS.get(type(node))
        if kind is None:
            continue
        if growth == "logarithmic" and _logarithmic(model, node, scope):
            continue
        found.append(Loop(kind, getattr(node, "lineno", 0), scope.name))
    return found


def _helper_loops(model: Model, scope: Scope) -> list[Loop]:
    found = []
    for node, values in expressions(model, scope.nodes, scope):
        for value in values:
            if not isinstance(value, str):
                continue
            if value in _ITERATION or value.startswith("itertools."):
                found.append(
                    Loop(value.removeprefix("builtins."), getattr(node, "lineno", 0), scope.name)
                )
                break
    for node in scope.nodes:
        if (
            isinstance(node, ast.Call)
            and len(node.args) == 2
            and "builtins.iter" in model.values(node.func, scope)
        ):
            found.append(Loop("iter(f, sentinel)", getattr(node, "lineno", 0), scope.name))
    for call in handed_on(model, scope, frozenset(_ITERATION | {"builtins.iter"})):
        found.append(Loop("higher-order call", call.line, scope.name, call.call))
    return found


def _recursion(model: Model, functions: list[Scope]) -> list[Loop]:
    """Cycles among the reachable functions (a reference to a function is taken as a call)."""
    members = {id(s) for s in functions}
    edges: dict[int, list[tuple[Scope, int]]] = {}
    for scope in functions:
        out: list[tuple[Scope, int]] = []
        for callee, line in _callees(model, scope):
            if id(callee) in members:
                out.append((callee, line))
        edges[id(scope)] = out
    found = []
    for cycle in _cycles(functions, edges):
        first = cycle[0]
        line = next(line for callee, line in edges[id(first)] if callee is cycle[1 % len(cycle)])
        path = " -> ".join(s.name for s in (*cycle, first))
        found.append(Loop("recursion", line, first.name, path))
    return found


def _callees(model: Model, scope: Scope):
    owner = scope.enclosing_class()
    this = scope.first_param() if owner is not None else None
    for node, values in expressions(model, scope.nodes, scope):
        for value in values:
            if isinstance(value, Scope):
                if value.kind in ("function", "lambda"):
                    yield value, getattr(node, "lineno", 0)
                elif value.kind == "class":
                    for method in ("__init__", "__new__", "__call__", "forward"):
                        for site in model.class_members(value, method):
                            if site.target is not None:
                                yield site.target, getattr(node, "lineno", 0)
        if owner is not None and isinstance(node, ast.Attribute):
            base, attrs = chain(node)
            if isinstance(base, ast.Name) and base.id == this:
                for site in model.class_members(owner, attrs[0]):
                    if site.target is not None:
                        yield site.target, getattr(node, "lineno", 0)


def _cycles(functions: list[Scope], edges) -> list[list[Scope]]:
    """One cycle per strongly connected component that has one (iterative Tarjan)."""
    index: dict[int, int] = {}
    low: dict[int, int] = {}
    on_stack: set[int] = set()
    stack: list[Scope] = []
    result: list[list[Scope]] = []
    counter = 0
    for start in functions:
        if id(start) in index:
            continue
        work = [(start, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[id(node)] = low[id(node)] = counter
                counter += 1
                stack.append(node)
                on_stack.add(id(node))
            out = edges.get(id(node), [])
            if i < len(out):
                work.append((node, i + 1))
                succ = out[i][0]
                if id(succ) not in index:
                    work.append((succ, 0))
                elif id(succ) in on_stack:
                    low[id(node)] = min(low[id(node)], index[id(succ)])
                continue
            if low[id(node)] == index[id(node)]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(id(member))
                    component.append(member)
                    if member is node:
                        break
                component.reverse()
                if len(component) > 1 or any(c is node for c, _ in edges.get(id(node), [])):
                    result.append(_order(component, edges))
            if work:
                parent = work[-1][0]
                low[id(parent)] = min(low[id(parent)], low[id(node)])
    return result


def _order(component: list[Scope], edges) -> list[Scope]:
    """The component as a cycle starting at its first function, following edges."""
    members = {id(s) for s in component}
    start = min(component, key=lambda s: s.line)
    path = [start]
    seen = {id(start)}
    current = start
    while True:
        nxt = next(
            (c for c, _ in edges.get(id(current), []) if id(c) in members and id(c) not in seen),
            None,
        )
        if nxt is None:
            return path
        path.append(nxt)
        seen.add(id(nxt))
        current = nxt


def _logarithmic(model: Model, node: ast.AST, scope: Scope) -> bool:
    if isinstance(node, ast.While):
        return _doubling_while(node)
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return _log_iterable(model, node.iter, scope)
    if isinstance(node, _COMPREHENSIONS):
        return all(_log_iterable(model, g.iter, scope) for g in node.generators)
    return False


def _log_iterable(model: Model, node: ast.expr, scope: Scope) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(isinstance(e, ast.Constant) for e in node.elts)
    if not (isinstance(node, ast.Call) and "builtins.range" in model.values(node.func, scope)):
        return False
    for part in node.args:
        for sub in ast.walk(part):
            if not isinstance(sub, ast.Call):
                continue
            if isinstance(sub.func, ast.Attribute) and sub.func.attr == "bit_length":
                return True
            if _LOG_CALLS & {v for v in model.values(sub.func, scope) if isinstance(v, str)}:
                return True
    return False


def _doubling_while(node: ast.While) -> bool:
    names = {n.id for n in ast.walk(node.test) if isinstance(n, ast.Name)}
    if not isinstance(node.test, ast.Compare) or not names:
        return False
    for name in names:
        updates = [n for n in _assignments(node.body, name)]
        if updates and all(_scales(u, name) for u in updates):
            return True
    return False


def _assignments(body: list[ast.stmt], name: str) -> list[ast.AST]:
    found: list[ast.AST] = []
    for statement in body:
        for sub in ast.walk(statement):
            if isinstance(sub, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr)):
                targets = sub.targets if isinstance(sub, ast.Assign) else [sub.target]
                if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                    found.append(sub)
                elif any(_binds(t, name) for t in targets):
                    found.append(ast.Pass())  # bound in an unpacking: not a plain scaling
            elif isinstance(sub, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith)):
                targets = (
                    [sub.target]
                    if isinstance(sub, (ast.For, ast.AsyncFor))
                    else [i.optional_vars for i in sub.items if i.optional_vars is not None]
                )
                if any(_binds(t, name) for t in targets):
                    found.append(ast.Pass())
    return found


def _binds(target: ast.AST, name: str) -> bool:
    """Whether assigning to ``target`` binds ``name``: the name itself, or inside a tuple,
    list or starred unpacking. ``out[:, step:] = ...`` only reads ``step`` (a Hillis-Steele
    scan writes its shifted copy so), and ``obj.step = ...`` binds an attribute."""
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds(e, name) for e in target.elts)
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    return False


def _constant(node: ast.AST, minimum: float) -> bool:
    return (
        isinstance(node, ast.Constant)
        and isinstance(node.value, (int, float))
        and not isinstance(node.value, bool)
        and node.value >= minimum
    )


def _scales(node: ast.AST, name: str) -> bool:
    """``name`` multiplied or divided by a constant factor of at least 2."""
    if isinstance(node, ast.AugAssign):
        if isinstance(node.op, (ast.Mult, ast.FloorDiv, ast.Div)):
            return _constant(node.value, 2)
        if isinstance(node.op, (ast.LShift, ast.RShift)):
            return _constant(node.value, 1)
        return False
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        value = node.value
        if not isinstance(value, ast.BinOp):
            return False
        left_is = isinstance(value.left, ast.Name) and value.left.id == name
        right_is = isinstance(value.right, ast.Name) and value.right.id == name
        if isinstance(value.op, ast.Mult):
            return (left_is and _constant(value.right, 2)) or (
                right_is and _constant(value.left, 2)
            )
        if isinstance(value.op, (ast.FloorDiv, ast.Div)):
            return left_is and _constant(value.right, 2)
        if isinstance(value.op, (ast.LShift, ast.RShift)):
            return left_is and _constant(value.right, 1)
        if isinstance(value.op, ast.Add):
            return left_is and right_is
    return False
