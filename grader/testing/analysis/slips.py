"""Slips a learner's file shows on its face: static evidence for a diagnosis.

Read on the trusted side, never run. Each :class:`Slip` is a line of the learner's own code that
explains a whole class of failures when the failure agrees with it (the plugin decides that,
see ``grader.engine.slips``):

* ``discarded``: the result of a pure tensor computation thrown away, a statement that changes
  nothing: an out-of-place method (``y.contiguous()``, ``x.add(1)``, ``t.float()``), a torch
  function (``torch.cat([a, b])``), an operator (``w * 0.01``, ``x - mean``) or an index
  (``boxes[keep]``). In-place methods (``add_``), calls with effects (``print``, ``append``,
  ``backward``, ``step``) and any call the grader does not know are never read as one;
* ``transpose_attr``: ``.T``, which reverses every dim and is the identity on a 1-D tensor;
* ``forward_under_no_grad``: a value computed inside ``with torch.no_grad():`` (the forward
  pass, the loss) that ``.backward()`` is later called on;
* ``data``: ``.data``, which reads a tensor's values past autograd.

Only the functions reachable by name from the graded functions are read, so a slip in code a
test never ran says nothing about it. A file that cannot be parsed gives no slips: a
diagnosis is only shown on evidence (saying less is the safe side).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from grader.text import source_lines

MAX_SOURCE_CHARS = 1 << 20

# Out-of-place tensor methods by what they change: a bare statement calling one changes nothing.
KINDS: dict[str, tuple[str, ...]] = {
    "layout": (
        "contiguous",
        "reshape",
        "view",
        "t",
        "transpose",
        "permute",
        "flatten",
        "squeeze",
        "unsqueeze",
        "expand",
        "expand_as",
        "view_as",
        "reshape_as",
        "movedim",
        "swapaxes",
        "flip",
    ),
    "dtype": ("float", "double", "long", "int", "half", "bool", "type", "short", "byte"),
    "device": ("cpu", "cuda"),
    "to": ("to",),  # .to(dtype) or .to(device): a dtype, a device or either
    "values": (
        "add",
        "sub",
        "mul",
        "div",
        "pow",
        "clamp",
        "clip",
        "abs",
        "exp",
        "log",
        "sqrt",
        "neg",
        "round",
        "floor",
        "ceil",
        "sigmoid",
        "relu",
        "tanh",
        "softmax",
        "masked_fill",
        "sum",
        "mean",
        "cumsum",
        "sort",
        "roll",
        "square",
        "fill_diagonal",
        "where",
        "maximum",
        "minimum",
        "clamp_min",
        "clamp_max",
        "scatter",
        "scatter_add",
        "scatter_reduce",
        "index_fill",
        "index_add",
        "index_copy",
        "index_put",
        "masked_scatter",
        "matmul",
        "mm",
        "bmm",
        "lerp",
    ),
    # a selection: an index or a method that picks elements (the subscripts below too)
    "select": ("index_select", "masked_select", "gather", "narrow", "take"),
    "graph": ("detach", "clone", "requires_grad"),
}
_KIND_OF = {name: kind for kind, names in KINDS.items() for name in names}
# torch.<function>(...) that returns a new tensor and changes none of its arguments
TORCH_FUNCTIONS: dict[str, str] = {
    **{
        name: "layout"
        for name in (
            "cat",
            "concat",
            "concatenate",
            "stack",
            "hstack",
            "vstack",
            "dstack",
            "reshape",
            "transpose",
            "permute",
            "flatten",
            "squeeze",
            "unsqueeze",
            "movedim",
            "swapaxes",
            "flip",
            "t",
        )
    },
    **{
        name: "values"
        for name in (
            "where",
            "clamp",
            "clip",
            "abs",
            "exp",
            "log",
            "sqrt",
            "add",
            "sub",
            "mul",
            "div",
            "pow",
            "matmul",
            "mm",
            "bmm",
            "einsum",
            "maximum",
            "minimum",
            "softmax",
            "sigmoid",
            "relu",
            "tanh",
            "sum",
            "mean",
            "cumsum",
            "round",
            "floor",
            "ceil",
            "neg",
            "square",
            "scatter",
            "scatter_add",
            "index_fill",
            "masked_fill",
        )
    },
    **{name: "select" for name in ("index_select", "masked_select", "gather", "narrow", "take")},
}
# bare module names whose methods are not tensor methods (``torch.manual_seed(0)``)
_MODULES = {"torch", "np", "numpy", "nn", "F", "math", "random", "os", "sys", "self", "optimizer"}
_NO_GRAD = {"no_grad", "inference_mode"}


@dataclass(frozen=True)
class Slip:
    kind: str  # discarded, transpose_attr, forward_under_no_grad, data, returned_under_no_grad
    line: int
    code: str  # the learner's own code, one line, capped
    method: str = ""  # for discarded: the method or torch function; "" for an expression
    group: str = ""  # for discarded: layout, dtype, device, to, values, graph, select
    function: str = ""
    # for discarded: "method" (x.add(1)), "function" (torch.cat(...)) or "expression"
    # (w * 0.01, boxes[keep]); ``keep``: the statement that keeps the result, where one name
    # is plainly meant (w = w * 0.01), else ""
    form: str = "method"
    keep: str = ""
    # for transpose_attr: .T is taken of a parameter of ``function`` itself (x.T), so the
    # tensor it applies to is an argument the test passed
    on_parameter: bool = False


def slips(source: str, functions: Iterable[str]) -> tuple[Slip, ...]:
    """The slips in the top-level functions ``functions`` and what they call by name."""
    reached = _reached(source, functions)
    if reached is None:
        return ()
    defs, seen = reached
    lines = source_lines(source)
    found: list[Slip] = []
    try:
        for name in seen:
            found += _in_function(defs[name], lines)
    except RecursionError:
        return ()
    return tuple(sorted(set(found), key=lambda s: (s.line, s.kind)))


def bare_calls(source: str, functions: Iterable[str], method: str) -> tuple[int, ...]:
    """The lines where ``<anything>.method()`` is called with no argument at all, in
    ``functions`` and what they call (``x.squeeze()``: every size-1 dim goes, not one)."""
    reached = _reached(source, functions)
    if reached is None:
        return ()
    defs, seen = reached
    return tuple(
        sorted(
            {
                node.lineno
                for name in seen
                for node in ast.walk(defs[name])
                if isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == method
                and not node.args
                and not node.keywords
            }
        )
    )


def keeps_dims(source: str, functions: Iterable[str]) -> tuple[int, ...] | None:
    """The lines where a reduction may keep its reduced dim, in ``functions`` and what they
    call: a ``keepdim=`` that is not the constant False, or ``topk`` (which always keeps it).
    None for a file that cannot be read (nothing can be said of it)."""
    reached = _reached(source, functions)
    if reached is None:
        return None
    defs, seen = reached
    found: set[int] = set()
    for name in seen:
        for node in ast.walk(defs[name]):
            if not isinstance(node, ast.Call):
                continue
            if isinstance(node.func, ast.Attribute) and node.func.attr == "topk":
                found.add(node.lineno)
            for keyword in node.keywords:
                given = keyword.value
                if keyword.arg is None or (
                    keyword.arg == "keepdim"
                    and not (isinstance(given, ast.Constant) and given.value is False)
                ):
                    found.add(node.lineno)  # **kwargs may hold a keepdim too
    return tuple(sorted(found))


def _reached(
    source: str, functions: Iterable[str]
) -> tuple[dict[str, ast.FunctionDef | ast.AsyncFunctionDef], list[str]] | None:
    """The top-level functions by name, and those of ``functions`` that exist with what they
    call by name; None for a file that cannot be read."""
    if len(source) > MAX_SOURCE_CHARS:
        return None
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    defs = {
        node.name: node
        for node in tree.body
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }
    todo = [f for f in functions if f in defs]
    seen: list[str] = []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.append(name)
        for node in ast.walk(defs[name]):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in defs
                and node.func.id not in seen
            ):
                todo.append(node.func.id)
    return defs, seen


def _code(lines: list[str], line: int) -> str:
    text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
    return text if len(text) <= 120 else text[:117] + "..."


# Methods that modules change in place (model.to(device), model.float()): dropped on a module
# they are right, so they are not read as slips on a receiver that may be one.
_MODULE_IN_PLACE = {"to", "cpu", "cuda", "float", "double", "half", "type", "bool"}
_MODULE_WORDS = ("model", "net", "module", "layer", "encoder", "decoder", "classifier", "linear")


def _modules(func: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Names that may hold a module: named like one, or assigned from ``nn.X(...)`` or
    ``torch.nn.X(...)``."""
    names = {
        n.id
        for n in ast.walk(func)
        if isinstance(n, ast.Name) and any(w in n.id.lower() for w in _MODULE_WORDS)
    }
    names |= {a.arg for a in func.args.args if any(w in a.arg.lower() for w in _MODULE_WORDS)}
    for node in ast.walk(func):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            # nn.Linear(...), torch.nn.Linear(...): a module; torch.arange(...) is a tensor, and
            # its dropped .to(device) is a slip (it was taken for a module's, and not said)
            parts = []
            root = node.value.func
            while isinstance(root, ast.Attribute):
                parts.append(root.attr)
                root = root.value
            if isinstance(root, ast.Name) and (root.id == "nn" or "nn" in parts):
                names |= _assigned(node)
    return names


def _receiver(node: ast.expr) -> str:
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _in_function(func: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> list[Slip]:
    found: list[Slip] = []
    modules = _modules(func)
    every = [*func.args.posonlyargs, *func.args.args, *func.args.kwonlyargs]
    params = {a.arg for a in every}
    for node in ast.walk(func):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
            call = node.value
            target = call.func
            if (
                isinstance(target, ast.Attribute)
                and target.attr in _KIND_OF
                and not (isinstance(target.value, ast.Name) and target.value.id in _MODULES)
                and _tensor_like(target.value)
                and not (target.attr in _MODULE_IN_PLACE and _receiver(target.value) in modules)
            ):
                found.append(
                    Slip(
                        "discarded",
                        node.lineno,
                        _code(lines, node.lineno),
                        target.attr,
                        _KIND_OF[target.attr],
                        func.name,
                    )
                )
        if isinstance(node, ast.Expr):
            dropped = _dropped_computation(node.value)
            if dropped is not None:
                method, group, form, keep = dropped
                found.append(
                    Slip(
                        "discarded",
                        node.lineno,
                        _code(lines, node.lineno),
                        method,
                        group,
                        func.name,
                        form,
                        keep,
                    )
                )
        if isinstance(node, ast.Attribute) and node.attr == "T":
            found.append(
                Slip(
                    "transpose_attr",
                    node.lineno,
                    _code(lines, node.lineno),
                    "T",
                    "",
                    func.name,
                    on_parameter=isinstance(node.value, ast.Name) and node.value.id in params,
                )
            )
        if isinstance(node, ast.Attribute) and node.attr == "data":
            found.append(
                Slip("data", node.lineno, _code(lines, node.lineno), "data", "", func.name)
            )
    found += _forward_under_no_grad(func, lines)
    return found


def returned_under_no_grad(source: str, functions: Iterable[str]) -> tuple[Slip, ...]:
    """The ``with torch.no_grad():`` blocks inside which a function in ``functions`` (or one
    they call) computes the value it returns: ``with torch.no_grad(): return f(x)``, or a name
    assigned inside the block that the return reads. A fact, not yet a slip: inference is what
    no_grad is for, so it explains only an answer that should have kept its graph."""
    reached = _reached(source, functions)
    if reached is None:
        return ()
    defs, seen = reached
    lines = source_lines(source)
    try:
        found = [s for name in seen for s in _returned_under_no_grad(defs[name], lines)]
    except RecursionError:
        return ()
    return tuple(sorted(set(found), key=lambda s: s.line))


def _returned_under_no_grad(
    func: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> list[Slip]:
    """``with torch.no_grad(): return f(x)``, or a name assigned inside the block and returned
    after it: the function's answer is computed without a graph, whatever its inputs."""
    found = []
    returns = [n for n in ast.walk(func) if isinstance(n, ast.Return) and n.value is not None]
    for block in ast.walk(func):
        if not (
            isinstance(block, (ast.With, ast.AsyncWith))
            and any(_is_no_grad(i) for i in block.items)
        ):
            continue
        inside = {id(n) for stmt in block.body for n in ast.walk(stmt)}
        assigned: set[str] = set()
        for stmt in block.body:
            for sub in ast.walk(stmt):
                if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                    assigned |= _assigned(sub)
        later = {
            name
            for stmt in ast.walk(func)
            if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            and id(stmt) not in inside
            and stmt.lineno > block.lineno
            for name in _assigned(stmt)
        }  # a name given a new value after the block is not the block's any more
        if any(id(r) in inside or _names_in(r.value) & (assigned - later) for r in returns):
            found.append(
                Slip(
                    "returned_under_no_grad",
                    block.lineno,
                    _code(lines, block.lineno),
                    "",
                    "",
                    func.name,
                )
            )
    return found


def _dropped_computation(value: ast.expr) -> tuple[str, str, str, str] | None:
    """(method, group, form, keep) for an expression statement whose value is a pure tensor
    computation other than a method call (read above): a torch function, an operator, an
    index. None for anything that may have an effect or is not a tensor computation."""
    if isinstance(value, ast.Call):
        target = value.func
        if (
            isinstance(target, ast.Attribute)
            and isinstance(target.value, ast.Name)
            and target.value.id == "torch"
            and target.attr in TORCH_FUNCTIONS
            and not any(isinstance(k.arg, str) and k.arg == "out" for k in value.keywords)
            and all(_pure(a) for a in [*value.args, *(k.value for k in value.keywords)])
        ):
            # torch.cat([out, b]): the learner meant to update out
            first = value.args[0] if value.args else None
            if isinstance(first, (ast.List, ast.Tuple)) and first.elts:
                first = first.elts[0]
            keep = f"{first.id} = {ast.unparse(value)}" if isinstance(first, ast.Name) else ""
            return target.attr, TORCH_FUNCTIONS[target.attr], "function", keep
        return None
    if isinstance(value, (ast.BinOp, ast.UnaryOp)) and _pure(value):
        operands = [value.left, value.right] if isinstance(value, ast.BinOp) else [value.operand]
        if not _names_in(value):
            return None  # constants only: 2 * 3
        first = operands[0]
        keep = f"{first.id} = {ast.unparse(value)}" if isinstance(first, ast.Name) else ""
        return "", "values", "expression", keep
    if isinstance(value, ast.Subscript) and _pure(value):
        root = value.value
        while isinstance(root, (ast.Attribute, ast.Subscript)):
            root = root.value  # a call here is a known tensor method or torch function
        if isinstance(root, ast.Constant) or (isinstance(root, ast.Name) and root.id in _MODULES):
            return None  # sys.argv[1], "abc"[0]: no tensor's index
        base = value.value
        keep = f"{base.id} = {ast.unparse(value)}" if isinstance(base, ast.Name) else ""
        return "", "select", "expression", keep
    return None


def _pure(node: ast.expr) -> bool:
    """An expression that only reads: names, constants, attributes, indexes, operators, and
    calls of out-of-place tensor methods or torch functions on such expressions."""
    if isinstance(node, (ast.Name, ast.Constant)):
        return True
    if isinstance(node, ast.Attribute):
        return _pure(node.value)
    if isinstance(node, ast.Subscript):
        return _pure(node.value) and _pure(node.slice)
    if isinstance(node, ast.Slice):
        return all(_pure(p) for p in (node.lower, node.upper, node.step) if p is not None)
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_pure(e) for e in node.elts)
    if isinstance(node, ast.Starred):
        return _pure(node.value)
    if isinstance(node, ast.BinOp):
        return _pure(node.left) and _pure(node.right)
    if isinstance(node, ast.UnaryOp):
        return _pure(node.operand)
    if isinstance(node, ast.Compare):
        return _pure(node.left) and all(_pure(c) for c in node.comparators)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        known = (
            node.func.attr in TORCH_FUNCTIONS
            if isinstance(node.func.value, ast.Name) and node.func.value.id == "torch"
            else node.func.attr in _KIND_OF
        )
        return (
            known
            and _pure(node.func.value)
            and all(_pure(a) for a in [*node.args, *(k.value for k in node.keywords)])
        )
    return False


def _tensor_like(node: ast.expr) -> bool:
    """A receiver that can be a tensor: a name, an attribute, a subscript, a call result or an
    operator's result ((x + y).sum())."""
    return isinstance(
        node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call, ast.BinOp, ast.UnaryOp)
    )


def _is_no_grad(item: ast.withitem) -> bool:
    expr = item.context_expr
    if isinstance(expr, ast.Call):
        expr = expr.func
    if isinstance(expr, ast.Attribute):
        return expr.attr in _NO_GRAD
    return isinstance(expr, ast.Name) and expr.id in _NO_GRAD


def _assigned(node: ast.AST) -> set[str]:
    names: set[str] = set()
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
        targets = [node.target]
    for target in targets:
        for sub in ast.walk(target):
            if isinstance(sub, ast.Name):
                names.add(sub.id)
    return names


def _names_in(node: ast.AST | None) -> set[str]:
    """The names ``node`` reads (none for a bare ``return``)."""
    if node is None:
        return set()
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _forward_under_no_grad(
    func: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]
) -> list[Slip]:
    """``with torch.no_grad(): loss = f(model(X), y)`` then ``loss.backward()``: the value
    backward() is called on was computed (directly or through names computed from it) inside
    the block."""
    blocks = [
        node
        for node in ast.walk(func)
        if isinstance(node, (ast.With, ast.AsyncWith)) and any(_is_no_grad(i) for i in node.items)
    ]
    if not blocks:
        return []
    statements = sorted(
        (n for n in ast.walk(func) if isinstance(n, ast.stmt)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    found = []
    for block in blocks:
        inside = {id(n) for stmt in block.body for n in ast.walk(stmt)}
        tainted: set[str] = set()
        for stmt in block.body:
            for sub in ast.walk(stmt):
                if isinstance(sub, (ast.Assign, ast.AnnAssign)) and not isinstance(
                    sub, ast.AugAssign
                ):
                    tainted |= _assigned(sub)
        if not tainted:
            continue
        for stmt in statements:
            if id(stmt) in inside or stmt.lineno <= block.lineno:
                continue
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                value = stmt.value
                if value is not None and _names_in(value) & tainted:
                    tainted |= _assigned(stmt)
                elif value is not None:
                    tainted -= _assigned(stmt)
        for node in ast.walk(func):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "backward"
                and id(node) not in inside
                and _names_in(node.func.value) & tainted
            ):
                found.append(
                    Slip(
                        "forward_under_no_grad",
                        block.lineno,
                        _code(lines, block.lineno),
                        "",
                        "",
                        func.name,
                    )
                )
                break
    return found
