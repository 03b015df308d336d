"""Callables handed to code that may call them once per element: loops with no loop in sight.

``sorted(x, key=lambda r: r.sum())``, ``t.apply_(math.exp)``, ``np.vectorize(f)(x)``,
``re.sub(p, repl, s)``, ``functools.reduce`` and every other higher-order call run Python code
per element as surely as a ``for`` loop does. The rule, fail closed: a call that is handed a
callable (in any argument position, keyword, ``*`` or ``**`` unpacking, or inside a literal
list, tuple, set or dict) counts as a loop, unless the call is on :data:`VECTORISING`: calls
known to call what they are given once, on whole tensors (``torch.vmap``, ``torch.func.grad``,
``torch.compile``, ...) or never (``isinstance``, ``super``, ``functools.wraps``, ...).

What counts as a callable:

* a function, lambda or class of the learner's file (and so a method of one: ``self.key``),
  or an instance of a class of the file that defines ``__call__``;
* ``functools.partial(...)``, ``operator.itemgetter(...)`` and the like, whatever they wrap;
* a name bound to any of these (``k = lambda r: r; sorted(x, key=k)``), or an element of a
  literal container holding one (``ops = [f]; sorted(x, key=ops[0])``);
* a named function or class of a module (``math.exp``, ``torch.sigmoid``, ``str.upper``),
  looked up in the modules the grader has already imported (never importing one); a name it
  cannot look up counts as callable;
* a method of an object the analysis cannot name, when the attribute is a method of a tensor,
  an array or a built-in container (``x.item``, ``d.get``) or of a class of the file
  (``Box().key``); ``x.shape`` and ``self.weight`` are not.

A call of the learner's own function or class is not judged here: its body is reachable, and
judged as code. ``functools.partial(g, key=f)`` is judged as a call of ``g``: it hands ``f`` to
``g`` as surely as ``g(key=f)`` does.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass

from grader.testing.analysis.markers import COMPUTED, UNKNOWN
from grader.testing.analysis.model import UNDEFINED, Model, Scope

# Calls that call what they are given once on whole tensors, or never call it: handing them
# a callable is not a loop. Anything else that is handed one counts as one.
VECTORISING = frozenset(
    {
        # transforms that run the function once, on batched or whole tensors
        "torch.vmap",
        "torch.func.vmap",
        "torch.func.grad",
        "torch.func.grad_and_value",
        "torch.func.vjp",
        "torch.func.jvp",
        "torch.func.jacrev",
        "torch.func.jacfwd",
        "torch.func.hessian",
        "torch.func.functional_call",
        "torch.compile",
        "torch.jit.script",
        "torch.jit.trace",
        "torch.utils.checkpoint.checkpoint",
        # never call their argument
        "builtins.isinstance",
        "builtins.issubclass",
        "builtins.super",
        "builtins.type",
        "builtins.callable",
        "builtins.id",
        "builtins.repr",
        "builtins.print",
        "builtins.hasattr",
        "functools.wraps",
        "functools.update_wrapper",
        "typing.cast",
    }
)
# Calls whose result is a callable, whatever they are given.
_MAKERS = frozenset(
    {
        "functools.partial",
        "functools.partialmethod",
        "operator.itemgetter",
        "operator.attrgetter",
        "operator.methodcaller",
        "numpy.vectorize",
        "numpy.frompyfunc",
    }
)
_PARTIALS = frozenset({"functools.partial", "functools.partialmethod"})
# What an object the analysis cannot name may be, for a method handed on as ``obj.name``.
_METHOD_OWNERS = ("torch.Tensor", "numpy.ndarray", "builtins.list", "builtins.dict")
_PLAIN_OWNERS = (list, dict, str, set, tuple, bytes, int, float)
_MAX_DEPTH = 12


@dataclass(frozen=True)
class HandedOn:
    """A call that is handed a callable and may call it per element."""

    call: str  # how the call is named in messages: "sorted", "torch.Tensor.apply_", "x.sort"
    line: int


def handed_on(model: Model, scope: Scope, skip: frozenset[str]) -> Iterator[HandedOn]:
    """The calls in ``scope``'s own code that are handed a callable and are not known to
    vectorise. ``skip``: callees reported as loops already (``map``, ``itertools.*``)."""
    for node in scope.nodes:
        if not isinstance(node, ast.Call):
            continue
        funcs = model.values(node.func, scope)
        names = {f for f in funcs if isinstance(f, str)}
        if names & skip or any(n.startswith("itertools.") for n in names):
            continue
        if COMPUTED in names or UNDEFINED in names:
            continue  # a call reached through a string: reported as a computed name already
        own = [f for f in funcs if isinstance(f, Scope)]
        if own and len(own) == len(funcs):
            continue  # the learner's own function or class: its body is judged as code
        args: list[ast.expr] = [*node.args, *(k.value for k in node.keywords)]
        callee: set[object] = set(funcs)
        if names & _PARTIALS and node.args:
            # partial(g, key=f) hands f to g: judge it as a call of g
            callee = set(model.values(node.args[0], scope))
            args = [*node.args[1:], *(k.value for k in node.keywords)]
            if not callee - {UNKNOWN} and not any(_callable(model, a, scope) for a in args):
                continue
        if callee and all(isinstance(c, str) and c in VECTORISING for c in callee):
            continue
        if any(_callable(model, arg, scope) for arg in args):
            yield HandedOn(_name(node.func, callee), getattr(node, "lineno", 0))


def _name(func: ast.expr, values: set[object]) -> str:
    known = sorted(
        v.removeprefix("builtins.") for v in values if isinstance(v, str) and v[0] != "?"
    )
    if known:
        return known[0]
    try:
        return ast.unparse(func)[:60]
    except (ValueError, RecursionError):
        return "a call"


def _callable(
    model: Model, expr: ast.expr, scope: Scope, depth: int = 0, seen: set[int] | None = None
) -> bool:
    """Whether ``expr`` may be a callable (see the module docstring). ``seen``: the binding
    sites followed already (a name bound to itself, ``a = a or b``, is followed once)."""
    if depth > _MAX_DEPTH:
        return False
    seen = set() if seen is None else seen
    if isinstance(expr, (ast.Tuple, ast.List, ast.Set)):
        return any(_callable(model, e, scope, depth + 1, seen) for e in expr.elts)
    if isinstance(expr, ast.Dict):
        parts = [*expr.values, *(k for k in expr.keys if k is not None)]
        return any(_callable(model, e, scope, depth + 1, seen) for e in parts)
    if isinstance(expr, ast.Starred):
        return _callable(model, expr.value, scope, depth + 1, seen)
    if isinstance(expr, ast.Subscript):
        return _callable(model, expr.value, scope, depth + 1, seen)
    if isinstance(expr, (ast.IfExp,)):
        return _callable(model, expr.body, scope, depth + 1, seen) or _callable(
            model, expr.orelse, scope, depth + 1
        )
    if isinstance(expr, ast.BoolOp):
        return any(_callable(model, e, scope, depth + 1, seen) for e in expr.values)
    if isinstance(expr, ast.NamedExpr):
        return _callable(model, expr.value, scope, depth + 1, seen)
    if isinstance(expr, ast.Call):
        funcs = model.values(expr.func, scope)
        if any(isinstance(f, str) and f in _MAKERS for f in funcs):
            return True
        # an instance of a class of the file that defines __call__
        return any(
            isinstance(f, Scope) and f.kind == "class" and model.class_members(f, "__call__")
            for f in funcs
        )
    for value in model.values(expr, scope):
        if isinstance(value, Scope) and value.kind in ("function", "lambda", "class"):
            return True
        if isinstance(value, str) and _named_callable(value):
            return True
        if (
            isinstance(value, str)
            and value.startswith(UNKNOWN + ".")
            and value.count(".") == 1
            and _own_method(model, value[2:])
        ):
            return True
    if isinstance(expr, ast.Name):
        # a name bound to a partial, a container of callables, another name, ...
        for where in model.binding_scopes(expr.id, scope):
            for site in where.sites.get(expr.id, []):
                value = site.value
                if value is None or id(site) in seen:
                    continue
                seen.add(id(site))
                if _callable(model, value, site.runs_in, depth + 1, seen):
                    return True
    return False


def _named_callable(value: str) -> bool:
    """Whether a dotted name the analysis resolved may be a callable: looked up in the modules
    already imported (never importing one); what cannot be looked up counts as callable,
    except a method of an object the analysis cannot name (see the module docstring)."""
    if value in (COMPUTED, UNDEFINED):
        return False  # judged as a computed name
    parts = value.split(".")
    if parts[0] == UNKNOWN:
        if len(parts) != 2:
            return False
        return _is_method(parts[1])
    for cut in range(len(parts), 0, -1):
        module = sys.modules.get(".".join(parts[:cut]))
        if module is None:
            continue
        found: object = module
        try:
            for attr in parts[cut:]:
                found = getattr(found, attr)
        except Exception:  # noqa: BLE001 - a name that cannot be looked up: fail closed
            return True
        return callable(found) and not _scalar_type(found)
    return True


def _own_method(model: Model, name: str) -> bool:
    """Whether a class of the file defines a method ``name``: ``obj.name`` of an object the
    analysis cannot name may be its bound method (``Box().key``, ``box.key``)."""
    model.ensure_mentioning({name})
    for found in list(model.scope_of.values()):
        if found.kind == "class" and any(
            site.target is not None and site.target.kind in ("function", "lambda")
            for site in found.sites.get(name, [])
        ):
            return True
    return False


def _scalar_type(found: object) -> bool:
    """A number type (``int``, ``np.float32``): handed on, it names a dtype (``dtype=float``,
    ``a.astype(np.float32)``); as a key it converts in C, without Python code per element."""
    if found in (int, float, bool, complex):
        return True
    numpy = sys.modules.get("numpy")
    generic = getattr(numpy, "generic", None) if numpy is not None else None
    return isinstance(found, type) and generic is not None and issubclass(found, generic)


def _is_method(name: str) -> bool:
    if name.startswith("__") and name.endswith("__") and name not in ("__getitem__", "__call__"):
        return False
    owners: list[object] = list(_PLAIN_OWNERS)
    for dotted in _METHOD_OWNERS:
        module_name, _, attr = dotted.rpartition(".")
        module = sys.modules.get(module_name)
        if module is not None and hasattr(module, attr):
            owners.append(getattr(module, attr))
    for owner in owners:
        member = getattr(owner, name, None)
        if member is not None and callable(member) and not isinstance(member, type):
            return True
    return False
