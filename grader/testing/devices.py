"""The meta device in hidden tests: a stand-in for a GPU on any machine.

Meta tensors have a device, a shape and a dtype but no data. A tensor the learner's code creates
without ``device=`` lands on the CPU next to meta inputs exactly as it would next to CUDA inputs,
so a meta case catches the slip on machines without a GPU. PyTorch's own meta kernels let many
operations take such a CPU tensor (a matmul, ``add_``, ``gather``, ``scatter_``, indexing with
meta indices) where a GPU refuses it; the learner's process refuses them as a GPU does in every
call on meta (``grader.sandbox.child._OneDevice``). Two things the learner's code may do
cannot run on meta, and are caught in the learner's process by :func:`call_on_meta`:

- copying a meta tensor's data elsewhere (filling a tensor made on the CPU from the inputs,
  ``.cpu()``) raises ``NotImplementedError: Cannot copy out of meta tensor; no data!``. Raised
  as is, it would read like an unfinished starter ("not implemented yet"); :func:`on_meta` names
  the device slip instead;
- reading the values (``.item()``, a tensor in an ``if`` or an ``assert``) raises
  ``RuntimeError: ... cannot be called on meta tensors``. Such code is not wrong, only untestable
  on meta: a test may ask for it to come back as data and skip the case.

:func:`reference_on` gives the reference's answer for meta inputs without running the reference
on meta (the first meta operation in a process costs about a second of imports).
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from typing import Any

import torch

from grader.notebooks import line_en, line_zh
from grader.spec import Text
from grader.testing.checks import fail, names


# A scenario: sent as source and run in the learner's process (see exercises/README.md), so it is
# self-contained and has no annotations (they would be evaluated there, without this module's
# imports).
def call_on_meta(module, name, args, catch_copies=True, catch_reads=False):
    """Runs in the learner's process: ``module.<name>(*args)`` on meta tensors.

    Returns ``{"value": ...}`` (a tuple result, such as torch.max's named tuple, as a plain
    tuple), or, instead of raising: ``{"copied_out_of_meta": message}`` when the code copied the
    data of a meta tensor to another device (with ``catch_copies``), ``{"reads_values": message}``
    when it read the values of a meta tensor (with ``catch_reads``).
    """
    try:
        value = getattr(module, name)(*args)
    except NotImplementedError as exc:
        said = str(exc)
        if "Cannot copy out of meta tensor" in said:
            # .tolist() (and .cpu() or .to("cpu") on the way to .numpy(), .tolist(), .item())
            # copies to read values, which a GPU does as well: a read, not a tensor left on
            # the CPU. Told by the learner's line that raised.
            import re
            import traceback

            code = getattr(getattr(module, name, None), "__code__", None)
            own = getattr(code, "co_filename", None)  # the name the learner's file ran under
            frames = traceback.extract_tb(exc.__traceback__)
            mine = [f.line or "" for f in frames if own and f.filename == own]
            read = re.search(r"\.(tolist|numpy|item)\(", mine[-1]) if mine else None
            if read is not None:
                if catch_reads:
                    return {"reads_values": said}
                raise RuntimeError(
                    f"Tensor.{read.group(1)}() cannot be called on meta tensors ({said})"
                ) from None
            if catch_copies:
                return {"copied_out_of_meta": said}
        # an operation whose result's shape depends on the values (nonzero, x[mask], unique):
        # PyTorch has no meta kernel for it; it reads values, it copies nothing
        if catch_reads and ("meta" in said.lower()):
            return {"reads_values": said}
        raise
    except RuntimeError as exc:  # "Tensor.item() cannot be called on meta tensors"
        if not catch_reads or "cannot be called on meta tensors" not in str(exc):
            raise
        return {"reads_values": str(exc)}
    return {"value": tuple(value) if isinstance(value, tuple) else value}


def on_meta(learner: Any, name: str, args: Sequence[Any], what: str | Text) -> Any:
    """``learner.<name>(*args)`` for meta inputs, run through :func:`call_on_meta`; returns the
    learner's answer. Fails with the ``wrong_device`` evidence when the learner's code copies the
    data of a meta input to another device (a tensor created without ``device=``, or ``.cpu()``).

    Code that reads values (``assert (h > 0).all()``, ``.item()``, ``x[mask]``) cannot run on
    meta, and is not wrong: on a GPU it runs. It raises here as any learner exception does, and
    the engine judges such a meta case from the source (``GraderPlugin._judged_from_source``),
    as it does wherever a meta case fails for a read."""
    answer = learner.run(call_on_meta, name, list(args))
    if "copied_out_of_meta" in answer:
        we, wz = names(what)
        said = answer["copied_out_of_meta"]
        fail(
            f"{we} tried to copy the data of its meta inputs to another device (PyTorch said: "
            f"{said}). Somewhere a tensor is created without device=... (it lands on the CPU) or "
            "moved with .cpu(); create every tensor on the inputs' device, e.g. device=x.device "
            "or x.new_empty(...).",
            f"{wz} 试图把 meta 输入的数据复制到另一个设备上（PyTorch 报错：{said}）。"
            "代码中某处创建张量时没有指定 device=...（于是它在 CPU 上），或者用了 .cpu()；"
            "请在输入所在的设备上创建每个张量，例如 device=x.device 或 x.new_empty(...)。",
            evidence=["wrong_device"],
        )
    return answer["value"]


def call_on_reported_cuda(module, name, args):
    """Runs in the learner's process: ``module.<name>(*args)`` with every tensor argument a CPU
    tensor that reports cuda:1, in every way a tensor tells its device (``device``,
    ``is_cuda``, ``is_cpu``, ``get_device()``). Returns ``{"devices": [...]}``, the device each
    tensor of the answer reports (a tensor derived from the inputs keeps their class, so
    "cuda:1"; one made without their device is a plain CPU tensor, "cpu"), or
    ``{"raised": message}`` (code that reached for a real GPU, as ``device=x.device`` does)."""

    class OnCuda1(torch.Tensor):
        @property
        def device(self):  # type: ignore[override]
            return torch.device("cuda", 1)

        @property
        def is_cuda(self):  # type: ignore[override]
            return True

        @property
        def is_cpu(self):  # type: ignore[override]
            return False

        def get_device(self):
            return 1

    inputs = [a.as_subclass(OnCuda1) if isinstance(a, torch.Tensor) else a for a in args]
    try:
        value = getattr(module, name)(*inputs)
    except Exception as exc:  # noqa: BLE001 - the learner's code: any exception leaves the case to a GPU
        return {"raised": f"{type(exc).__name__}: {exc}"[:300]}
    values = value if isinstance(value, (tuple, list)) else [value]
    return {"devices": [str(v.device) for v in values if isinstance(v, torch.Tensor)]}


def follows_reported_cuda(learner: Any, name: str, args: Sequence[Any], what: str | Text) -> None:
    """The device requirement where meta cannot run the code because it reads values (``x[mask]``,
    a loop over the elements): ``learner.<name>(*args)`` on CPU tensors that report cuda:1
    (:func:`call_on_reported_cuda`). Fails with ``wrong_device`` where the answer holds a plain
    CPU tensor: made without the inputs' device, it would be on the CPU next to CUDA inputs.
    Code that raised there is judged on a GPU alone; an answer of another form fails (closed)."""
    answer = learner.run(call_on_reported_cuda, name, list(args))
    we, wz = names(what)
    if isinstance(answer, dict) and set(answer) == {"raised"} and isinstance(answer["raised"], str):
        return
    devices = answer.get("devices") if isinstance(answer, dict) and len(answer) == 1 else None
    if not isinstance(devices, list) or not all(isinstance(d, str) for d in devices):
        fail(
            f"{we}: the grader could not read which device your answer is on.",
            f"{wz}：评分器无法读取你的结果位于哪个设备上。",
            evidence=["unreadable_answer"],
        )
    if "cpu" in devices:
        fail(
            f"{we} for inputs on cuda:1 (CPU tensors standing in for a GPU, which report that "
            "device) returned a tensor on the CPU: a tensor made without device=... "
            "(torch.tensor(a_list), torch.zeros(n)) lands on the CPU whatever the inputs' "
            "device. Build the result from the inputs themselves (x[x > 0], torch.stack of "
            "their elements), or pass device=x.device.",
            f"{wz} 在输入位于 cuda:1 时（由自称位于该设备的 CPU 张量代替 GPU）返回了 CPU 上的张量："
            "不指定 device=... 创建的张量（torch.tensor(列表)、torch.zeros(n)）无论输入在哪个设备上"
            "都位于 CPU。请直接由输入本身得到结果（x[x > 0]、对其元素使用 torch.stack），"
            "或传入 device=x.device。",
            evidence=["wrong_device"],
        )


def reference_on(device: str, fn: Callable[..., Any], *args: Any) -> Any:
    """The reference's answer ``fn(*args)``. For meta inputs (shapes without data) it is the
    answer to CPU stand-ins of the same shapes and dtypes (zeros), moved to meta: the same
    expected shape, dtype and device, without paying here the one-off import of PyTorch's meta
    kernels (about a second). Only for results whose shape does not depend on the values."""
    if device != "meta":
        return fn(*args)
    stand_ins = [
        torch.zeros(a.shape, dtype=a.dtype) if isinstance(a, torch.Tensor) else a for a in args
    ]
    return fn(*stand_ins).to("meta")


# ---------------------------------------------------------------------------------------------
# The static backstop of device cases (trusted side: the learner's file is read, never run)

_DEVICE_ATTRS = {"device", "is_cuda", "is_meta", "is_cpu", "is_mps"}
_DEVICE_WORDS = {"cuda", "meta", "cpu", "mps"}
# torch functions that make a tensor on the CPU unless told otherwise (the *_like and
# x.new_* forms follow their input's device and are fine)
_CONSTRUCTORS = {
    f"torch.{name}"
    for name in (
        "zeros",
        "ones",
        "empty",
        "full",
        "arange",
        "range",
        "linspace",
        "logspace",
        "eye",
        "rand",
        "randn",
        "randint",
        "randperm",
        "tensor",
        "as_tensor",
        "normal",
        "empty_strided",
    )
}


def _mentions_device(node: ast.AST, params: set[str]) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in _DEVICE_ATTRS:
            return True
        if isinstance(sub, ast.Name) and sub.id in params and "device" in sub.id:
            return True
        if (
            isinstance(sub, ast.Constant)
            and isinstance(sub.value, str)
            and sub.value.split(":")[0] in _DEVICE_WORDS
        ):
            return True
    return False


def _is_device_operand(node: ast.AST, params: set[str]) -> bool:
    """A compared value that is a device itself (not a tensor computed with one)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.split(":")[0] in _DEVICE_WORDS
    if isinstance(node, ast.Name):
        return node.id in params and "device" in node.id
    if isinstance(node, ast.Attribute):
        return node.attr in _DEVICE_ATTRS or (
            node.attr == "type" and _is_device_operand(node.value, params)
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "str":
        return any(_is_device_operand(arg, params) for arg in node.args)
    return False


# Exceptions a tensor operation never raises: a handler of only these cannot make code take
# another path on one device than on another. Any other handler can (a bare ``except``,
# ``Exception``, ``RuntimeError``, ``NotImplementedError`` ("Cannot copy out of meta tensor"),
# ``TypeError`` (``.numpy()`` of a CUDA tensor), a name the analysis cannot resolve, ...).
_HARMLESS_EXCEPTIONS = frozenset(
    f"builtins.{name}"
    for name in (
        "KeyError",
        "StopIteration",
        "StopAsyncIteration",
        "ImportError",
        "ModuleNotFoundError",
        "FileNotFoundError",
        "UnicodeDecodeError",
        "UnicodeEncodeError",
    )
)
_SUPPRESSORS = frozenset({"contextlib.suppress"})
_TRIES: tuple[type, ...] = (ast.Try, getattr(ast, "TryStar", ast.Try))  # except* from 3.11
CATCHES = "catches errors"  # the kind of slip: what device_slips says of such a handler


def _catches(model: Any, handler_type: ast.expr | None, scope: Any) -> bool:
    """Whether an ``except`` clause (its type; None: a bare ``except``) may catch what a
    tensor operation raises. Fail closed: anything but a known harmless exception counts."""
    if handler_type is None:
        return True
    if isinstance(handler_type, (ast.Tuple, ast.List)):
        return any(_catches(model, e, scope) for e in handler_type.elts)
    values = model.values(handler_type, scope)
    return not values or not all(v in _HARMLESS_EXCEPTIONS for v in values)


def _only_reraises(model: Any, handler: ast.ExceptHandler, scope: Any) -> bool:
    """Whether an ``except`` clause does nothing but raise again what it caught (a bare
    ``raise``, ``raise exc`` of its own ``as exc``, or ``raise exc from None``, which only
    hides the context), after nothing but ``pass``, a string, or a ``print`` of constants and
    the caught error: the error propagates exactly as without the ``try``, so no other path is
    taken."""
    *before, last = handler.body
    if not all(
        isinstance(stmt, ast.Pass)
        or (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        or _prints_error(model, stmt, handler.name, scope)
        for stmt in before
    ):
        return False
    if not isinstance(last, ast.Raise):
        return False
    if last.cause is not None and not (
        isinstance(last.cause, ast.Constant) and last.cause.value is None
    ):
        return False
    exc = last.exc
    return exc is None or (
        handler.name is not None and isinstance(exc, ast.Name) and exc.id == handler.name
    )


def _prints_error(model: Any, stmt: ast.stmt, name: str | None, scope: Any) -> bool:
    """Whether ``stmt`` is a call of the built-in ``print`` on constants, the caught error
    ``name``, f-strings, ``str`` and ``repr`` of those, to the standard streams: nothing in it
    runs a tensor operation or changes what happens next. Fail closed: anything else counts."""
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    call = stmt.value
    if model.values(call.func, scope) != {"builtins.print"}:
        return False

    def inert(expr: ast.expr) -> bool:
        if isinstance(expr, ast.Constant):
            return True
        if isinstance(expr, ast.Name):
            return name is not None and expr.id == name
        if isinstance(expr, ast.JoinedStr):
            return all(inert(part) for part in expr.values)
        if isinstance(expr, ast.FormattedValue):
            return inert(expr.value) and (expr.format_spec is None or inert(expr.format_spec))
        if isinstance(expr, ast.Call) and not expr.keywords and len(expr.args) == 1:
            return model.values(expr.func, scope) in (
                {"builtins.str"},
                {"builtins.repr"},
            ) and inert(expr.args[0])
        return False

    for keyword in call.keywords:
        if keyword.arg in ("sep", "end", "flush") and isinstance(keyword.value, ast.Constant):
            continue
        if keyword.arg == "file" and model.values(keyword.value, scope) in (
            {"sys.stderr"},
            {"sys.stdout"},
        ):
            continue
        return False
    return all(not isinstance(arg, ast.Starred) and inert(arg) for arg in call.args)


def _error_paths(model: Any, scope: Any) -> list[tuple[int, str]]:
    """Where the code of ``scope`` takes another path when an operation raises: a ``try``
    with a handler that may catch a tensor operation's error, ``contextlib.suppress`` of one,
    or a ``with`` of a context manager of the file (its ``__exit__`` may swallow errors)."""
    found: list[tuple[int, str]] = []
    for node in scope.nodes:
        if isinstance(node, _TRIES):
            handlers: list[ast.ExceptHandler] = getattr(node, "handlers", [])
            for handler in handlers:
                if not _only_reraises(model, handler, scope) and _catches(
                    model, handler.type, scope
                ):
                    found.append((handler.lineno, CATCHES))
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                context = item.context_expr
                func = context.func if isinstance(context, ast.Call) else context
                values = model.values(func, scope)
                if values & _SUPPRESSORS and isinstance(context, ast.Call):
                    if not context.args or any(_catches(model, a, scope) for a in context.args):
                        found.append((node.lineno, CATCHES))
                elif any(
                    getattr(v, "kind", None) == "class" and model.class_members(v, "__exit__")
                    for v in values
                ):
                    found.append((node.lineno, CATCHES))
    return found


def device_slips(
    source: str, function: str, *, constructors: bool = False
) -> list[tuple[int, str]]:
    """Where ``function`` (and everything it can run) decides by the device it runs on
    (``if x.is_meta``, ``device.type == "cuda"``): code that honours the device only on some
    devices, which a meta case alone cannot catch. Also where it takes another path when an
    operation raises (``try``/``except`` that may catch a tensor operation's error,
    ``contextlib.suppress``): an operation that fails on meta and works on CUDA (copying a
    meta tensor's data into a CPU tensor) turns such code into code that decides by the
    device. With ``constructors``, also every tensor constructor that makes its tensor on the
    CPU (no ``device=``, not moved by ``.to``/``.cuda`` at once). Returns (line, what) pairs,
    what being "decides by the device", "catches errors" or "makes a tensor on the CPU";
    raises Unanalysable (fail closed) when the file cannot be read."""
    from grader.testing.analysis import analyse
    from grader.testing.analysis.core import expressions

    analysis = analyse(source)
    found: list[tuple[int, str]] = []
    for scope in analysis.reach(function).scopes:
        params = set(scope.params)
        parents: dict[int, ast.AST] = {}
        for node in scope.nodes:
            for child in ast.iter_child_nodes(node):
                parents[id(child)] = node
        for node in scope.nodes:
            test = None
            if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
                test = node.test
            elif isinstance(node, ast.Compare) and any(
                _is_device_operand(operand, params) for operand in [node.left, *node.comparators]
            ):
                test = node  # x.device.type == "cuda", device == "meta", ...
            elif isinstance(node, ast.match_case) and node.guard is not None:
                test = node.guard
            if test is not None and _mentions_device(test, params):
                found.append((getattr(node, "lineno", 0), "decides by the device"))
        with analysis.guard():
            found.extend(_error_paths(analysis.require(), scope))
        if not constructors or analysis.model is None:
            continue
        for node, values in expressions(analysis.model, scope.nodes, scope):
            call = parents.get(id(node))
            if not (isinstance(call, ast.Call) and call.func is node and values & _CONSTRUCTORS):
                continue
            if any(k.arg == "device" for k in call.keywords):
                continue
            outer = parents.get(id(call))
            moved = isinstance(outer, ast.Attribute) and outer.attr in ("to", "cuda", "type_as")
            if not moved:
                found.append((call.lineno, "makes a tensor on the CPU"))
    return sorted(set(found))


def assert_device_follows(
    source: str, function: str, what: str | Text, *, constructors: bool = True
) -> None:
    """The device requirement judged from the source alone, where running on meta cannot
    judge it (code that reads values): ``function`` never decides by the device, and (with
    ``constructors``) makes every tensor on its inputs' device. Fails closed when the file
    cannot be analysed."""
    from grader.testing.analysis import Unanalysable

    we, wz = names(what)
    try:
        slips = device_slips(source, function, constructors=constructors)
    except Unanalysable as exc:
        fail(
            f"{we}: the grader could not read your file to check the device ({exc.problem.en})",
            f"{wz}：评分器无法读取你的文件来检查设备（{exc.problem.zh}）。",
            evidence=["wrong_device", "source_unanalysable"],
        )
    if slips:
        lines = ", ".join(f"{line_en(line)} {why}" for line, why in slips)
        why_zh = {"decides by the device": "根据设备做判断", CATCHES: "捕获了异常"}
        lines_zh = ", ".join(
            f"{line_zh(line)}{why_zh.get(why, '在 CPU 上创建张量')}" for line, why in slips
        )
        fail(
            f"{we} must work the same way on every device, and here only its source can tell "
            f"({lines}). Create every tensor on the inputs' device (device=x.device, "
            "torch.zeros_like, x.new_empty), never test which device the code runs on, and let "
            "errors of tensor operations propagate instead of catching them.",
            f"{wz} 必须在任何设备上都以同样的方式工作，而这里只能从源代码判断（{lines_zh}）。"
            "请在输入所在的设备上创建每个张量（device=x.device、torch.zeros_like、x.new_empty），"
            "不要判断代码运行在哪个设备上，也不要捕获张量运算的异常，让它们直接抛出。",
            evidence=["wrong_device", "device_branch"],
        )
