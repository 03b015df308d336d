"""Hidden tests of exercise-13: autograd basics.

Pitfalls from the seeds: only floating-point tensors can require grad (000 §7.1, the tutorials
always write 3.0); a gradient read from .grad is a tensor, the number is .item() (003 §3.1);
backward() *adds* into .grad, so a second call doubles the answer (003 §3.2, the x.grad == 12
example); .grad stays None for a tensor the graph never reaches, i.e. an input f does not use
(003 §3.1, 003 §5.1 "gradients are all None"); and a helper must not leave requires_grad or
.grad switched on in its caller's tensors (001 §8.2).

The functions ``f`` cannot cross into the learner's process, so every call runs in a scenario
that defines them there. A scenario also returns the inputs as they are after the call, and the
test compares them with the originals (the automatic input check only covers ``learner.fn``).

Each test judges one requirement (see `requirements` in exercise.yaml): the values tests compare
values (and shapes) only, the dtype and device of the gradients have their own tests, an int x
is judged by comparing derivative(f, 3) with the same learner's derivative(f, 3.0), calling
gradients twice by comparing the second answer with the same learner's first, views by comparing
the learner on views with the same learner on contiguous copies, and only
test_gradients_leave_inputs_alone judges what the call did to the inputs.
"""

import ast
import math
from contextlib import contextmanager

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import (
    CheckFailed,
    LearnerRaised,
    assert_close,
    assert_device,
    assert_dtype,
    describe,
    describe_zh,
    fail,
)
from grader.testing.properties import PROPERTY

# -- scenarios: run next to the learner's code ------------------------------------------------


def derivative_run(module, cases, safe=False):
    """derivative(f, x) for each (name of f, x). With ``safe``, an exception comes back as data,
    {"error": ...} (an unfinished starter's NotImplementedError is raised as it is)."""
    functions = {
        "x**2 + 2*x + 1": lambda x: x**2 + 2 * x + 1,
        "x**2 + 3*x": lambda x: x**2 + 3 * x,
        "sin(x) * exp(x)": lambda x: torch.sin(x) * torch.exp(x),
        "x**3 - 4*x": lambda x: x**3 - 4 * x,
        "sqrt(x)": lambda x: torch.sqrt(x),
        "1 / (1 + exp(-x))": lambda x: 1 / (1 + torch.exp(-x)),
        "log(1 + x**2)": lambda x: torch.log(1 + x**2),
    }
    if not safe:
        return [module.derivative(functions[name], x) for name, x in cases]
    try:
        return {"value": [module.derivative(functions[name], x) for name, x in cases]}
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - judged by the tests of values
        return {"error": f"{type(exc).__name__}: {exc}"}


def quadratic_run(module, a, b, c, x):
    """derivative(f, x) for f(x) = a*x**2 + b*x + c."""
    return module.derivative(lambda t: a * t**2 + b * t + c, x)


def derivative_points(module, x):
    """Where derivative(f, x) evaluates f(t) = t**2 + 2*t + 1, and whether its argument required
    grad each time, and its dtype: {"points": [floats], "grad": [bools], "dtypes": [names]}
    (arguments that are not one-element
    tensors left out), or None where the call raises. A finite-difference quotient evaluates f
    near x, on tensors that do not require grad; autograd evaluates it at x on a leaf that does."""
    points, grad, dtypes = [], [], []

    def f(t):
        if isinstance(t, torch.Tensor) and t.numel() == 1:
            points.append(float(t.detach().reshape(())))
            grad.append(bool(t.requires_grad))
            dtypes.append(str(t.dtype).replace("torch.", ""))
        return t**2 + 2 * t + 1

    try:
        module.derivative(f, x)
    except Exception:  # noqa: BLE001 - the tests of values judge the call
        return None
    return {"points": points, "grad": grad, "dtypes": dtypes}


def gradients_run(module, name, xs, calls, safe=False):
    """gradients(f, *xs), ``calls`` times; each answer is copied as soon as it comes back. With
    ``safe``, an exception comes back as data, {"error": ...} (an unfinished starter's
    NotImplementedError is raised as it is)."""
    functions = {
        "f(x) = x**2 + 2*x + 1": lambda x: x**2 + 2 * x + 1,
        "f(w, b, X, y) = mean((X @ w + b - y)**2)": lambda w, b, X, y: (
            (X @ w + b - y) ** 2
        ).mean(),
        "f(W, v, x) = sum(tanh(W @ x) * v)": lambda W, v, x: (torch.tanh(W @ x) * v).sum(),
        "f(x) = sum(logsumexp(x, dim=1))": lambda x: torch.logsumexp(x, dim=1).sum(),
        "f(x, e) = sum(x**2) + sum(e)": lambda x, e: (x**2).sum() + e.sum(),
        "f(x, y, z) = sum(x * y)": lambda x, y, z: (x * y).sum(),
        "f(a, p, q) = sum(a * p) + sum(q**2)": lambda a, p, q: (a * p).sum() + (q**2).sum(),
        "f(X, w) = sum((X @ w)**2)": lambda X, w: ((X @ w) ** 2).sum(),
        "f(a, B, c) = sum(B * a.float())": lambda a, B, c: (B * a.float()).sum(),
        "f(x) = sum(x**3)": lambda x: (x**3).sum(),
    }
    f = functions[name]
    results = []
    for _ in range(calls):
        try:
            got = module.gradients(f, *xs)
        except NotImplementedError:
            raise
        except Exception as exc:  # with safe, judged by the tests of values
            if not safe:
                raise
            return {"error": f"{type(exc).__name__}: {exc}", "inputs": list(xs)}
        if isinstance(got, (tuple, list)):
            got = type(got)(g.detach().clone() if isinstance(g, torch.Tensor) else g for g in got)
        results.append(got)
    return {"results": results, "inputs": list(xs)}


# -- a .grad that is None: which tensor the learner read it from ------------------------------

_COPIES = {"to", "double", "float", "half", "bfloat16", "cuda", "cpu", "type"}


def _flagged(call):
    """Whether ``call`` makes a leaf that requires grad: ``torch.tensor(..., requires_grad=True)``
    or ``x.requires_grad_()``."""
    return isinstance(call, ast.Call) and (
        any(
            k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value
            for k in call.keywords
        )
        or (isinstance(call.func, ast.Attribute) and call.func.attr == "requires_grad_")
    )


def _derivative_def(source):
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "derivative":
            return node
    return None


def _line(source, node):
    return node.lineno, source.splitlines()[node.lineno - 1].strip()[:100]


def _converted_leaf(source):
    """(line, code, name) of derivative's leaf made with requires_grad and then converted in the
    same expression (``torch.tensor(x, requires_grad=True).double()``), or None."""
    func = _derivative_def(source)
    if func is None:
        return None
    for node in ast.walk(func):
        if (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
            and isinstance(node.value, ast.Call)
            and isinstance(node.value.func, ast.Attribute)
            and node.value.func.attr in _COPIES
            and _flagged(node.value.func.value)
        ):
            return (*_line(source, node), node.targets[0].id)
    return None


def _grad_of_result(source):
    """(line, code, result, leaf) where derivative reads ``.grad`` of a tensor that f (its first
    argument) or an operation computed, ``y = f(t); ... y.grad``, rather than of the leaf it
    made with requires_grad (``leaf``: that leaf's name, or None); None when it does not."""
    func = _derivative_def(source)
    if func is None or not func.args.args:
        return None
    f = func.args.args[0].arg
    computed, leaf = set(), None
    for node in ast.walk(func):
        if not (
            isinstance(node, ast.Assign)
            and len(node.targets) == 1
            and isinstance(node.targets[0], ast.Name)
        ):
            continue
        name, value = node.targets[0].id, node.value
        if _flagged(value):
            leaf = name
        elif isinstance(value, (ast.BinOp, ast.UnaryOp)) or (
            isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == f
        ):
            computed.add(name)
    for node in ast.walk(func):
        if not (isinstance(node, ast.Attribute) and node.attr == "grad"):
            continue
        target = node.value
        called = (
            isinstance(target, ast.Call)
            and isinstance(target.func, ast.Name)
            and target.func.id == f
        )
        if called or (isinstance(target, ast.Name) and target.id in computed):
            result = ast.get_source_segment(source, target) or "y"
            return (*_line(source, node), result, leaf)
    return None


def _clears_grad(node):
    """Whether the statement ``node`` zeroes a ``.grad``: ``t.grad.zero_()``,
    ``t.grad.data.zero_()``, ``t.grad.fill_(0)``, ``t.grad[...] = 0`` or ``t.grad *= 0``."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        func = node.value.func
        if isinstance(func, ast.Attribute) and func.attr in ("zero_", "fill_"):
            inner = func.value
            if isinstance(inner, ast.Attribute) and inner.attr == "data":
                inner = inner.value
            return isinstance(inner, ast.Attribute) and inner.attr == "grad"
    if isinstance(node, ast.AugAssign):
        return isinstance(node.target, ast.Attribute) and node.target.attr == "grad"
    if isinstance(node, ast.Assign) and len(node.targets) == 1:
        target = node.targets[0]
        return (
            isinstance(target, ast.Subscript)
            and isinstance(target.value, ast.Attribute)
            and target.value.attr == "grad"
        )
    return False


def _differentiates(node):
    """Whether ``node`` calls backward() or torch.autograd.grad."""
    return any(
        isinstance(c, ast.Call)
        and isinstance(c.func, ast.Attribute)
        and c.func.attr in ("backward", "grad")
        for c in ast.walk(node)
    )


def _zeroed_before_backward(source, line):
    """(line, code) when derivative's statement on ``line`` (where it raised) clears a .grad
    before any backward() in derivative: a fresh leaf's .grad is None until a backward()
    reaches it, so there is nothing to zero yet. None otherwise."""
    func = _derivative_def(source)
    if func is None or line is None:
        return None
    statements = sorted(
        (n for n in ast.walk(func) if isinstance(n, ast.stmt) and n is not func),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for node in statements:
        if node.lineno > line:
            return None
        if _clears_grad(node) and node.lineno == line:
            return _line(source, node)
        if not isinstance(node, (ast.For, ast.While, ast.If, ast.With)) and _differentiates(node):
            return None
    return None


def _sentence(text, stop="."):
    text = text.rstrip()
    return text if text.endswith((".", "。")) else text + stop


@contextmanager
def _none_grad_named(source):
    """derivative raising on a .grad that is None: names the learner's line that read .grad of a
    tensor that is not a leaf (a result of f, or a leaf converted after requires_grad), in
    place of the catalogue's advice about None gradients in general. There are no parameters
    here."""
    try:
        yield
    except (LearnerRaised, CheckFailed) as exc:
        # a .grad that was None used (raised), or returned as it is (judged: ``_number``)
        if isinstance(exc, LearnerRaised):
            if "NoneType" not in exc.text:
                raise
        elif exc.data.get("returned") != "none":
            raise
        if not source:
            raise
        raised = exc.frames[-1].line if isinstance(exc, LearnerRaised) and exc.frames else None
        zeroed = _zeroed_before_backward(source, raised)
        converted = None if zeroed else _converted_leaf(source)
        read = None if zeroed or converted else _grad_of_result(source)
        if zeroed is not None:
            line, code = zeroed
            exc.message = Text(
                f"{_sentence(exc.message.en)} Line {line}, `{code}`, runs before any "
                "backward(): a leaf made with requires_grad=True has no gradient yet, its .grad "
                "is None until a backward() reaches it, so there is nothing to zero. A fresh "
                "leaf starts with no gradient, so the derivative needs no zeroing at all: drop "
                "that line (zero a .grad only between two backward() calls on the same leaf).",
                f"{_sentence(exc.message.zh, '。')}第 {line} 行的 `{code}` 在任何 backward() 之前执行："
                "用 requires_grad=True 创建的叶子张量还没有梯度，在某次 backward() 到达它之前，它的 "
                ".grad 是 None，所以没有东西可以清零。新建的叶子张量本来就没有梯度，求导数根本不需要"
                "清零：去掉这一行（只有在同一个叶子张量上两次 backward() 之间才需要清零 .grad）。",
            )
            exc.evidence = (*exc.evidence, "grad_zeroed_before_backward")
        elif converted is not None:
            line, code, name = converted
            exc.message = Text(
                f"{_sentence(exc.message.en)} Line {line}, `{code}`, creates a leaf with "
                "requires_grad=True and then converts it: the conversion is a recorded "
                f"operation, so {name} is a new tensor computed from that leaf, not a leaf, and "
                f'backward() never fills {name}.grad, which stays None (PyTorch warns: "The '
                '.grad attribute of a Tensor that is not a leaf Tensor is being accessed"). Set '
                "requires_grad on the final tensor: create it with the dtype it needs, "
                "torch.tensor(float(x), dtype=torch.float64, requires_grad=True), or convert "
                "first and call .requires_grad_() last.",
                f"{_sentence(exc.message.zh, '。')}第 {line} 行的 `{code}` 先用 requires_grad=True "
                f"创建了一个叶子张量，又对它做了转换：转换是一次被记录的运算，所以 {name} 是由那个"
                f"叶子张量算出的新张量，而不是叶子张量，backward() 永远不会填充 {name}.grad，它一直"
                '是 None（PyTorch 会警告："The .grad attribute of a Tensor that is not a leaf Tensor '
                'is being accessed"）。请在最终的张量上设置 requires_grad：直接用需要的 dtype 创建它，'
                "torch.tensor(float(x), dtype=torch.float64, requires_grad=True)，或者先转换，最后再"
                "调用 .requires_grad_()。",
            )
            exc.evidence = (*exc.evidence, "converted_leaf_not_leaf")
        elif read is not None:
            line, code, result, leaf = read
            leaf_en = f"{leaf}.grad" if leaf else "the .grad of that leaf"
            leaf_zh = f"{leaf}.grad" if leaf else "那个叶子张量的 .grad"
            exc.message = Text(
                f"{_sentence(exc.message.en)} Line {line}, `{code}`, reads {result}.grad: "
                f"{result} is computed from your leaf, not a leaf itself, and backward() fills "
                ".grad only on leaves, the tensors you create with requires_grad=True (PyTorch "
                'warns: "The .grad attribute of a Tensor that is not a leaf Tensor is being '
                f"accessed\"). The derivative is the leaf's gradient: read {leaf_en} after "
                "backward().",
                f"{_sentence(exc.message.zh, '。')}第 {line} 行的 `{code}` 读取的是 {result}.grad："
                f"{result} 是由你的叶子张量算出来的，本身不是叶子张量，而 backward() 只填充叶子张量"
                '（你用 requires_grad=True 创建的张量）的 .grad（PyTorch 会警告："The .grad '
                'attribute of a Tensor that is not a leaf Tensor is being accessed"）。导数是叶子张量'
                f"的梯度：请在 backward() 之后读取 {leaf_zh}。",
            )
            exc.evidence = (*exc.evidence, "grad_of_non_leaf")
        raise


# -- helpers ----------------------------------------------------------------------------------
# A `what` names the call in code (`gradients(f, x, y, z)[2], f(x, y, z) = sum(x * y)`), so that
# it reads the same in both languages.


def _number(value, what):
    """A learner's derivative as a float (a 1-element tensor or array is accepted here)."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return float(value.detach().cpu().reshape(()))
    if isinstance(value, (int, float, np.generic)) and not isinstance(value, (bool, np.bool_)):
        return float(value)
    if isinstance(value, np.ndarray) and value.size == 1 and value.dtype.kind in "iuf":
        return float(value.reshape(()))
    fail(
        f"{what} should be a number, but yours is {describe(value)}.",
        f"{what} 应该是一个数，但你的结果是 {describe_zh(value)}。",
        evidence=["wrong_type"],
        data={"returned": "none"} if value is None else None,
    )


def _close(got, want):
    return math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6) or (
        math.isnan(got) and math.isnan(want)
    )


class _FunctionValue:
    """A stand-in module whose derivative(f, x) is f(x) itself: what a learner returns who
    reads y.item() after y.backward() instead of x.grad.item()."""

    @staticmethod
    def derivative(f, x):
        return float(f(torch.tensor(float(x), dtype=torch.float64)))


def _is_function_value(value, at, slope):
    """``value`` is f(x) (``at``), which the derivative (``slope``) is not."""
    return math.isclose(value, at, rel_tol=1e-4, abs_tol=1e-6) and not math.isclose(
        at, slope, rel_tol=1e-4, abs_tol=1e-6
    )


def _function_value_story(what, value, want):
    """The message for a derivative that is f(x) itself."""
    fail(
        f"{what} is {value:.7g}, expected {want:.7g}: {value:.7g} is the value of f at x, "
        "not its slope. After y = f(t) and y.backward(), y still holds f(x); the derivative is "
        "in the gradient of the leaf: return t.grad.item(), not y.item().",
        f"{what} 的结果为 {value:.7g}，期望 {want:.7g}：{value:.7g} 是 f 在 x 处的函数值，而不是"
        "它的斜率。y = f(t) 并调用 y.backward() 之后，y 仍然是 f(x)；导数在叶子张量的梯度里："
        "返回 t.grad.item()，而不是 y.item()。",
        evidence=["values_differ", "function_value_not_derivative"],
    )


def _numbers_or_none(cases, got):
    """The learner's derivatives as floats, or None where one is not a number (judged, in
    its turn, by _check_derivatives)."""
    try:
        return [_number(g, "") for g in got] if len(got) == len(cases) else None
    except CheckFailed:
        return None


def _check_derivatives(cases, got, want):
    values = _numbers_or_none(cases, got)
    at = derivative_run(_FunctionValue, cases)
    # f(x) where f'(x) was due, in every case (and at least one where the two differ)
    every_value = (
        values is not None
        and all(math.isclose(v, a, rel_tol=1e-4, abs_tol=1e-6) for v, a in zip(values, at))
        and any(_is_function_value(v, a, w) for v, a, w in zip(values, at, want))
    )
    for (name, x), g, w in zip(cases, got, want):
        what = f"derivative(f, {x!r}), f(x) = {name}"
        value = _number(g, what)
        if not _close(value, w):
            if every_value:
                _function_value_story(what, value, w)
            fail(
                f"{what} is {value:.7g}, expected {w:.7g}.",
                f"{what} 的结果为 {value:.7g}，期望 {w:.7g}。",
                evidence=["values_differ"],
            )


def _call(name):
    """`gradients(f, x, y, z)` for the function named `f(x, y, z) = ...`."""
    args = name[2 : name.index(")")]
    return f"gradients(f, {args})"


def _grad_tuple(got, count, call):
    """The learner's answer as a sequence of ``count`` gradients (the tuple type is judged by
    test_gradients_returns_tuple)."""
    if isinstance(got, torch.Tensor) and count == 1:
        return (got,)
    if not isinstance(got, (tuple, list)):
        fail(
            f"{call} should return a tuple of gradients, but yours returned {describe(got)}.",
            f"{call} 应该返回由梯度组成的元组，但你的结果是 {describe_zh(got)}。",
            evidence=["wrong_type"],
        )
    if len(got) != count:
        fail(
            f"{call} should return one gradient per input ({count}), but yours returned {len(got)}.",
            f"{call} 应该为每个输入返回一个梯度（{count} 个），但你的结果有 {len(got)} 个。",
            evidence=["wrong_length"],
        )
    return got


def _compare_grads(got, want, name, note="", none_ok=False):
    """Each gradient the learner returned against the reference's, for f named ``name``."""
    call = _call(name)
    got = _grad_tuple(got, len(want), f"{call}, {name}")
    for i, (g, w) in enumerate(zip(got, want)):
        what = f"{call}[{i}], {name}{note}"
        if g is None and none_ok:
            continue  # judged by test_gradients_unused_input_is_zero
        if g is None:
            fail(
                f"{what} is None. .grad (and torch.autograd.grad with allow_unused=True) gives "
                "None for an input that f does not use; the gradient of f with respect to it is "
                "zero, so return torch.zeros_like(input).",
                f"{what} 是 None。对于 f 没有用到的输入，.grad（以及带 allow_unused=True 的 "
                "torch.autograd.grad）给出的是 None；f 对它的梯度为零，所以应返回 "
                "torch.zeros_like(输入)。",
                evidence=["values_differ", "unused_input_none"],
            )
        # Values (and shapes) only: the dtype and device have their own tests.
        assert_close(g, w, what, rtol=1e-4, atol=1e-6, check_dtype=False, check_device=False)


def _input_changes(before, after, name):
    """Fail if an input's values, requires_grad or .grad differ after the calls."""
    call = _call(name)
    args = call[len("gradients(f, ") : -1].split(", ")
    for arg, b, a in zip(args, before, after):
        if a.requires_grad != b.requires_grad:
            fail(
                f"{call} changed its input {arg}: {arg}.requires_grad went from "
                f"{b.requires_grad} to {a.requires_grad}. Do not switch requires_grad on the "
                "caller's tensor; work on x.detach().requires_grad_() (a new leaf sharing x's "
                "values) instead.",
                f"{call} 修改了它的输入 {arg}：{arg}.requires_grad 从 {b.requires_grad} 变成了 "
                f"{a.requires_grad}。不要改动调用者张量的 requires_grad；请改用 "
                "x.detach().requires_grad_()（与 x 共享数值的新叶子张量）。",
                evidence=["input_mutated", "input_requires_grad_changed"],
            )
        if (a.grad is None) != (b.grad is None) or (
            a.grad is not None
            and a.device.type != "meta"
            and not torch.equal(a.grad.detach().cpu(), b.grad.detach().cpu())
        ):
            story_en, story_zh = (
                (
                    f"backward() left a gradient in {arg}.grad",
                    f"backward() 在 {arg}.grad 中留下了梯度",
                )
                if b.grad is None
                else (
                    f"{arg}.grad, which already held a gradient, was changed (backward() adds "
                    "into it; zero_() or None resets it)",
                    f"本来就存有梯度的 {arg}.grad 被改变了（backward() 会累加进去，zero_() "
                    "或赋值 None 会重置它）",
                )
            )
            fail(
                f"{call} changed its input {arg}: {story_en}. The caller's .grad must stay as it "
                "was: use torch.autograd.grad, which returns the gradients without storing them, "
                "or call backward() on fresh leaves (x.detach().requires_grad_()).",
                f"{call} 修改了它的输入 {arg}：{story_zh}。调用者的 .grad 必须保持原样："
                "请使用 torch.autograd.grad（它直接返回梯度而不存储），或在新的叶子张量"
                "（x.detach().requires_grad_()）上调用 backward()。",
                evidence=["input_mutated", "input_grad_changed"],
            )
        if a.device.type != "meta" and not torch.equal(a.detach().cpu(), b.detach().cpu()):
            fail(
                f"{call} changed the values of its input {arg}; work on a copy or use "
                "out-of-place operations.",
                f"{call} 修改了它的输入 {arg} 的值；请在副本上操作，或使用非原地运算。",
                evidence=["input_mutated", "input_values_changed"],
            )


def _randn(rng, *shape, dtype=torch.float32):
    return torch.randn(shape, generator=rng, dtype=dtype)


# -- derivative --------------------------------------------------------------------------------

DERIVATIVE_CASES = [
    ("x**2 + 2*x + 1", 3.0),
    ("x**2 + 3*x", 2.0),
    ("sin(x) * exp(x)", 0.7),
    ("x**3 - 4*x", -1.5),
    ("sqrt(x)", 1e-6),
    ("1 / (1 + exp(-x))", 0.0),
    ("log(1 + x**2)", -2.0),
]


def _finite_difference_named(learner, x=3.0):
    """Fail where derivative(f, x) evaluates f at points other than x and never on a tensor that
    requires grad (:func:`derivative_points`): a difference quotient, (f(x + h) - f(x - h)) / 2h,
    not autograd. Nothing is said where the run cannot be observed."""
    try:
        seen = learner.run(derivative_points, x)
    except LearnerFault:
        return
    if not isinstance(seen, dict):
        return
    points, grad = seen.get("points"), seen.get("grad")
    if not (
        isinstance(points, list)
        and isinstance(grad, list)
        and len(points) == len(grad)
        and all(type(p) is float for p in points)
        and all(type(g) is bool for g in grad)
    ):
        return
    near = [p for p in points if p != x and math.isfinite(p) and abs(p - x) <= 0.5]
    if not near or any(grad):
        return
    shown = ", ".join(f"{p:.9g}" for p in points[:4])
    fail(
        f"derivative(f, {x!r}) evaluates f at {shown}, on tensors that do not require grad, "
        "and never asks autograd: it approximates the slope by a difference quotient "
        "(f(x + h) - f(x - h)) / 2h, whose error (h**2 times the third derivative, and rounding "
        "divided by h) the exercise does not allow. Let autograd compute the exact derivative: "
        "t = torch.tensor(float(x), requires_grad=True); f(t).backward(); return t.grad.item().",
        f"derivative(f, {x!r}) 在 {shown} 处计算 f，所用的张量都不需要梯度，而且从未使用自动求导："
        "它用差商 (f(x + h) - f(x - h)) / 2h 近似斜率，其误差（h**2 乘以三阶导数，以及舍入误差除以 h）"
        "是题目不允许的。请让自动求导计算精确的导数：t = torch.tensor(float(x), requires_grad=True)；"
        "f(t).backward()；return t.grad.item()。",
        evidence=["values_differ", "finite_difference"],
    )


def _half_leaf_named(learner, x=3.0):
    """Fail where derivative(f, x) differentiates f at a leaf of float16 or bfloat16 (every
    argument f receives is one, and requires grad): the derivative carries that dtype's
    rounding. Called only where a derivative already differs; nothing is said where the run
    cannot be observed."""
    try:
        seen = learner.run(derivative_points, x)
    except LearnerFault:
        return
    dtypes = seen.get("dtypes") if isinstance(seen, dict) else None
    grad = seen.get("grad") if isinstance(seen, dict) else None
    if not (isinstance(dtypes, list) and isinstance(grad, list) and dtypes and any(grad)):
        return
    if not all(d in ("float16", "bfloat16") for d in dtypes):
        return
    fail(
        f"derivative(f, {x!r}) differentiates f at a leaf of dtype {dtypes[0]}: its derivatives "
        "carry that dtype's rounding (about 3 significant digits for float16, 2 for bfloat16), "
        "where a float32 or float64 leaf is exact to the digits checked. Create the leaf as a "
        "float: t = torch.tensor(float(x), requires_grad=True) (float32), with no .half().",
        f"derivative(f, {x!r}) 在 dtype 为 {dtypes[0]} 的叶子张量上对 f 求导：导数带有该 dtype 的舍入"
        "误差（float16 约 3 位有效数字，bfloat16 约 2 位），而 float32 或 float64 的叶子在所检查的位数"
        "内是精确的。请把叶子创建为浮点数：t = torch.tensor(float(x), requires_grad=True)（float32），"
        "不要 .half()。",
        evidence=["values_differ", "low_precision_float"],
    )


def test_derivative_values(learner, reference, learner_source):
    with _none_grad_named(learner_source):
        got = learner.run(derivative_run, DERIVATIVE_CASES)
        _finite_difference_named(learner)
        try:
            _check_derivatives(DERIVATIVE_CASES, got, derivative_run(reference, DERIVATIVE_CASES))
        except CheckFailed:
            _half_leaf_named(learner)
            raise


@PROPERTY
@given(
    a=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    b=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    c=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    x=st.floats(-4, 4, allow_nan=False).map(lambda v: round(v, 3)),
)
def test_derivative_of_quadratics(learner, reference, learner_source, a, b, c, x):
    what = f"derivative(f, {x!r}), f(x) = {a!r}*x**2 + {b!r}*x + {c!r}"
    with _none_grad_named(learner_source):
        value = _number(learner.run(quadratic_run, a, b, c, x), what)
    want = quadratic_run(reference, a, b, c, x)
    if not math.isclose(value, want, rel_tol=1e-5, abs_tol=1e-5):
        if _is_function_value(value, quadratic_run(_FunctionValue, a, b, c, x), want):
            _function_value_story(what, value, want)
        _finite_difference_named(learner, float(x))
        _half_leaf_named(learner, float(x))
        fail(
            f"{what} should be 2*{a!r}*{x!r} + {b!r} = {want:.7g}, but yours is {value:.7g}.",
            f"{what} 应为 2*{a!r}*{x!r} + {b!r} = {want:.7g}，但你的结果是 {value:.7g}。",
            evidence=["values_differ"],
        )


def test_derivative_returns_float(learner, learner_source):
    cases = [("x**2 + 2*x + 1", 3.0), ("sin(x) * exp(x)", 0.7)]
    with _none_grad_named(learner_source):
        values = learner.run(derivative_run, cases)
        for (name, x), value in zip(cases, values):
            if value is None:  # a .grad returned as it is: named where the source shows whose
                _number(value, f"derivative(f, {x!r}), f(x) = {name}")
    for (name, x), value in zip(cases, values):
        what = f"derivative(f, {x!r}), f(x) = {name}"
        if isinstance(value, torch.Tensor):
            fail(
                f"{what} should be a Python float, but yours is {describe(value)}. x.grad is a "
                "tensor; .item() (or float(...)) gives the number.",
                f"{what} 应该是 Python 浮点数，但你的结果是 {describe_zh(value)}。x.grad 是张量；"
                ".item()（或 float(...)）才会给出数值。",
                evidence=["wrong_type", "number_returned_as_tensor"],
            )
        if not isinstance(value, float):
            fail(
                f"{what} should be a Python float, but yours is {describe(value)}; .item() of "
                "a one-element tensor gives a Python float.",
                f"{what} 应该是 Python 浮点数，但你的结果是 {describe_zh(value)}；对单元素张量调用 "
                ".item() 就能得到 Python 浮点数。",
                evidence=["wrong_type"],
            )


def test_derivative_integer_x(learner, learner_source):
    # The learner against the learner: derivative(f, 3) must give what the same code gives for
    # derivative(f, 3.0) (whether that value is right is judged by the values tests).
    cases = [("x**2 + 2*x + 1", 3), ("x**3 - 4*x", -2)]
    floats = learner.run(derivative_run, [(name, float(x)) for name, x in cases], True)
    if "error" in floats:
        return  # it fails for floats too: the values tests report that
    with _none_grad_named(learner_source):
        ints = learner.run(derivative_run, cases)  # an error here is the learner's own, diagnosed
    for (name, x), got, want in zip(cases, ints, floats["value"]):
        what = f"derivative(f, {x!r}), f(x) = {name}"
        value = _number(got, what)
        expected = _number(want, f"derivative(f, {float(x)!r}), f(x) = {name}")
        if not _close(value, expected):
            fail(
                f"{what} is {value:.7g}, but your derivative(f, {float(x)!r}) is {expected:.7g}: "
                "an int x must give the same derivative as the float. Convert it first: "
                "torch.tensor(float(x), requires_grad=True).",
                f"{what} 的结果为 {value:.7g}，但你的 derivative(f, {float(x)!r}) 为 {expected:.7g}："
                "整数 x 应与对应的浮点数得到相同的导数。请先转换：torch.tensor(float(x), requires_grad=True)。",
                evidence=["values_differ"],
            )


# -- gradients ----------------------------------------------------------------------------------


def _value_cases(rng):
    """(f, inputs): a scalar, linear regression, a small network, float64, an empty input."""
    n, d = 8, 3
    return [
        ("f(x) = x**2 + 2*x + 1", [torch.tensor(3.0)]),
        ("f(x) = x**2 + 2*x + 1", [torch.tensor(-0.25)]),
        (
            "f(w, b, X, y) = mean((X @ w + b - y)**2)",
            [_randn(rng, d), _randn(rng), _randn(rng, n, d), _randn(rng, n)],
        ),
        ("f(W, v, x) = sum(tanh(W @ x) * v)", [_randn(rng, 4, 5), _randn(rng, 4), _randn(rng, 5)]),
        ("f(x) = sum(logsumexp(x, dim=1))", [_randn(rng, 3, 4, dtype=torch.float64)]),
        ("f(x, e) = sum(x**2) + sum(e)", [_randn(rng, 2, 3), _randn(rng, 0)]),
    ]


def _shape_text(x):
    dims = tuple(x.shape)
    text = "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"
    return text + (f" {str(x.dtype).removeprefix('torch.')}" if x.dtype != torch.float32 else "")


def test_gradients_values(learner, reference, device, rng):
    for name, xs in _value_cases(rng):
        xs = [x.to(device) for x in xs]
        got = learner.run(gradients_run, name, xs, 1)["results"][0]
        want = gradients_run(reference, name, xs, 1)["results"][0]
        args = _call(name)[len("gradients(f, ") : -1].split(", ")
        shapes = ", ".join(f"{a}: {_shape_text(x)}" for a, x in zip(args, xs))
        _compare_grads(got, want, name, f" [{shapes}]")


def test_gradients_unused_input_is_zero(learner, device, rng):
    xs = [_randn(rng, 4).to(device), _randn(rng, 4).to(device), _randn(rng, 2, 3).to(device)]
    name = "f(x, y, z) = sum(x * y)"
    call = _call(name)
    got = _grad_tuple(learner.run(gradients_run, name, xs, 1)["results"][0], 3, f"{call}, {name}")
    # Only the gradient of z, which f does not use (the others are judged by the values tests).
    what = f"{call}[2], {name}"
    g = got[2]
    if g is None:
        fail(
            f"{what} is None. .grad (and torch.autograd.grad with allow_unused=True) gives "
            "None for an input that f does not use; the gradient of f with respect to it is "
            "zero, so return torch.zeros_like(input).",
            f"{what} 是 None。对于 f 没有用到的输入，.grad（以及带 allow_unused=True 的 "
            "torch.autograd.grad）给出的是 None；f 对它的梯度为零，所以应返回 "
            "torch.zeros_like(输入)。",
            evidence=["values_differ", "unused_input_none"],
        )
    assert_close(g, torch.zeros(2, 3), what, rtol=0, atol=0, check_dtype=False, check_device=False)


def test_gradients_twice_same_answer(learner, device, rng):
    # The learner against the learner: the second call must give what the first one gave
    # (whether the first is right is judged by the values tests).
    name = "f(w, b, X, y) = mean((X @ w + b - y)**2)"
    xs = [_randn(rng, 3), _randn(rng), _randn(rng, 6, 3), _randn(rng, 6)]
    xs = [x.to(device) for x in xs]
    run = learner.run(gradients_run, name, xs, 2, True)
    if "error" in run:
        return  # it fails on a single call: the values tests report that
    first, second = run["results"]
    call = _call(name)
    first = _grad_tuple(first, len(xs), f"{call}, {name}")
    second = _grad_tuple(second, len(xs), f"{call}, {name}")
    for i, (g, w) in enumerate(zip(second, first)):
        if not isinstance(g, torch.Tensor) or not isinstance(w, torch.Tensor):
            continue  # judged by test_gradients_returns_tuple and the values tests
        if g.shape != w.shape:
            fail(
                f"Called a second time with the same inputs, {call}[{i}] has shape "
                f"{tuple(g.shape)}, but {tuple(w.shape)} on the first call.",
                f"用相同的输入第二次调用 {call} 时，{call}[{i}] 的形状为 {tuple(g.shape)}，"
                f"而第一次为 {tuple(w.shape)}。",
                evidence=["values_differ"],
            )
        g, w = g.detach().cpu().double(), w.detach().cpu().double()
        if torch.allclose(g, w, rtol=1e-6, atol=1e-7):
            continue
        if torch.allclose(g, 2 * w, rtol=1e-4, atol=1e-6):
            fail(
                f"Called a second time with the same inputs, {call} returned twice the gradient "
                f"of the first call ({call}[{i}], {name}): backward() adds into .grad, so the first "
                "call's gradient was still there. A helper must not accumulate anything between "
                "calls: use torch.autograd.grad, which returns the gradients without storing "
                "them, or fresh leaves x.detach().requires_grad_() on every call.",
                f"用相同的输入第二次调用 {call} 时，返回的梯度是第一次的两倍（{call}[{i}]，{name}）："
                "backward() 会累加进 .grad，第一次调用的梯度还留在那里。辅助函数在两次调用之间不能"
                "累积任何东西：请使用 torch.autograd.grad（它直接返回梯度而不存储），或每次调用都用"
                "新的叶子张量 x.detach().requires_grad_()。",
                evidence=["values_differ", "helper_grad_accumulates"],
            )
        index = int((~torch.isclose(g, w, rtol=1e-6, atol=1e-7)).reshape(-1).nonzero()[0])
        fail(
            f"Called a second time with the same inputs, {call} returned a different answer: "
            f"{call}[{i}] (flattened element {index}) is {g.reshape(-1)[index]:.6g} on the second "
            f"call, {w.reshape(-1)[index]:.6g} on the first. The second call must not depend on "
            "the first.",
            f"用相同的输入第二次调用 {call} 时，结果不同了：{call}[{i}]（展平后第 {index} 个元素）"
            f"第二次为 {g.reshape(-1)[index]:.6g}，第一次为 {w.reshape(-1)[index]:.6g}。"
            "第二次调用不应受第一次调用的影响。",
            evidence=["values_differ", "helper_grad_accumulates"],
        )


def test_gradients_leave_inputs_alone(learner, device, rng):
    # a: a plain tensor; p: requires grad and already holds a gradient; q: requires grad, no .grad.
    a = _randn(rng, 5).to(device)
    p = _randn(rng, 5).to(device).requires_grad_(True)
    p.grad = _randn(rng, 5).to(device)
    q = _randn(rng, 2, 2).to(device).requires_grad_(True)
    xs = [a, p, q]
    name = "f(a, p, q) = sum(a * p) + sum(q**2)"
    # The inputs as they are after the call, even when it raises (the gradients it returns are
    # judged by the values tests).
    run = learner.run(gradients_run, name, xs, 1, True)
    _input_changes(xs, run["inputs"], name)


def test_gradients_non_contiguous(learner, device, rng):
    # The learner on views against the same learner on contiguous copies of the same values.
    X = _randn(rng, 5, 4).to(device).t()  # a transposed view, shape (4, 5)
    w = _randn(rng, 10).to(device)[::2]  # a sliced view, shape (5,)
    name = "f(X, w) = sum((X @ w)**2)"
    copies = learner.run(gradients_run, name, [X.contiguous(), w.contiguous()], 1, True)
    if "error" in copies:
        return  # it fails on contiguous inputs too: the values tests report that
    got = learner.run(gradients_run, name, [X, w], 1)["results"][0]  # an error here is diagnosed
    want = _grad_tuple(copies["results"][0], 2, f"{_call(name)}, {name}")
    if any(not isinstance(g, torch.Tensor) for g in want):
        return  # judged by test_gradients_returns_tuple
    _compare_grads(
        got,
        want,
        name,
        " [X = randn(5, 4).t(), w = randn(10)[::2], against your own answer for "
        "X.contiguous(), w.contiguous()]",
    )


def _dtype_device_case(learner, device, rng):
    # a float64 input next to float32 ones; c is unused (its zeros must be made like c).
    xs = [_randn(rng, 3, dtype=torch.float64), _randn(rng, 2, 3), _randn(rng, 4)]
    xs = [x.to(device) for x in xs]
    name = "f(a, B, c) = sum(B * a.float())"
    call = _call(name)
    got = _grad_tuple(learner.run(gradients_run, name, xs, 1)["results"][0], 3, f"{call}, {name}")
    return name, call, xs, got


def test_gradients_keep_dtype(learner, device, rng):
    name, call, xs, got = _dtype_device_case(learner, device, rng)
    for i, (g, x) in enumerate(zip(got, xs)):
        if isinstance(g, torch.Tensor):  # None is judged by test_gradients_unused_input_is_zero
            assert_dtype(g, x.dtype, f"{call}[{i}], {name} [a.dtype = float64]")


def test_gradients_on_device(learner, device, rng):
    # On meta (shapes without data), a tensor made on the CPU shows exactly as on a GPU.
    name, call, xs, got = _dtype_device_case(learner, device, rng)
    for i, (g, x) in enumerate(zip(got, xs)):
        if isinstance(g, torch.Tensor):
            assert_device(g, x.device, f"{call}[{i}], {name} [device = {device}]")


def test_gradients_returns_tuple(learner, rng):
    for name, xs in (
        ("f(x) = sum(x**3)", [_randn(rng, 3)]),
        ("f(W, v, x) = sum(tanh(W @ x) * v)", [_randn(rng, 2, 3), _randn(rng, 2), _randn(rng, 3)]),
    ):
        got = learner.run(gradients_run, name, xs, 1)["results"][0]
        call = _call(name)
        if not isinstance(got, tuple):
            fail(
                f"{call} should return a tuple with one gradient per input (even for a single "
                f"input), but yours returned {describe(got)}.",
                f"{call} 应该返回一个元组，每个输入对应一个梯度（只有一个输入时也一样），"
                f"但你的结果是 {describe_zh(got)}。",
                evidence=["wrong_type"],
            )
        if len(got) != len(xs) or not all(isinstance(g, torch.Tensor) for g in got):
            fail(
                f"{call} should return a tuple of {len(xs)} tensors, but yours holds "
                f"{', '.join(describe(g) for g in got) or 'nothing'}.",
                f"{call} 应该返回包含 {len(xs)} 个张量的元组，但你的结果包含 "
                f"{', '.join(describe_zh(g) for g in got) or '空'}。",
                evidence=["wrong_type"],
            )
