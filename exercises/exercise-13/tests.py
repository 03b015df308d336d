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
"""

import math

import numpy as np
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing import assert_close, describe, fail
from grader.testing.properties import PROPERTY

# -- scenarios: run next to the learner's code ------------------------------------------------


def derivative_run(module, cases):
    """derivative(f, x) for each (name of f, x)."""
    functions = {
        "x**2 + 2*x + 1": lambda x: x**2 + 2 * x + 1,
        "x**2 + 3*x": lambda x: x**2 + 3 * x,
        "sin(x) * exp(x)": lambda x: torch.sin(x) * torch.exp(x),
        "x**3 - 4*x": lambda x: x**3 - 4 * x,
        "sqrt(x)": lambda x: torch.sqrt(x),
        "1 / (1 + exp(-x))": lambda x: 1 / (1 + torch.exp(-x)),
        "log(1 + x**2)": lambda x: torch.log(1 + x**2),
    }
    return [module.derivative(functions[name], x) for name, x in cases]


def quadratic_run(module, a, b, c, x):
    """derivative(f, x) for f(x) = a*x**2 + b*x + c."""
    return module.derivative(lambda t: a * t**2 + b * t + c, x)


def gradients_run(module, name, xs, calls):
    """gradients(f, *xs), ``calls`` times; each answer is copied as soon as it comes back."""
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
        got = module.gradients(f, *xs)
        if isinstance(got, (tuple, list)):
            got = type(got)(g.detach().clone() if isinstance(g, torch.Tensor) else g for g in got)
        results.append(got)
    return {"results": results, "inputs": list(xs)}


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
        f"{what} 应该是一个数，但你的结果是 {describe(value)}。",
        evidence=["wrong_type"],
    )


def _close(got, want):
    return math.isclose(got, want, rel_tol=1e-5, abs_tol=1e-6) or (
        math.isnan(got) and math.isnan(want)
    )


def _check_derivatives(cases, got, want):
    for (name, x), g, w in zip(cases, got, want):
        what = f"derivative(f, {x!r}), f(x) = {name}"
        value = _number(g, what)
        if not _close(value, w):
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
            f"{call} 应该返回由梯度组成的元组，但你的结果是 {describe(got)}。",
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
        assert_close(g, w, what, rtol=1e-4, atol=1e-6)


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


def test_derivative_values(learner, reference):
    got = learner.run(derivative_run, DERIVATIVE_CASES)
    _check_derivatives(DERIVATIVE_CASES, got, derivative_run(reference, DERIVATIVE_CASES))


@PROPERTY
@given(
    a=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    b=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    c=st.floats(-5, 5, allow_nan=False).map(lambda v: round(v, 3)),
    x=st.floats(-4, 4, allow_nan=False).map(lambda v: round(v, 3)),
)
def test_derivative_of_quadratics(learner, reference, a, b, c, x):
    what = f"derivative(f, {x!r}), f(x) = {a!r}*x**2 + {b!r}*x + {c!r}"
    value = _number(learner.run(quadratic_run, a, b, c, x), what)
    want = quadratic_run(reference, a, b, c, x)
    if not math.isclose(value, want, rel_tol=1e-5, abs_tol=1e-5):
        fail(
            f"{what} should be 2*{a!r}*{x!r} + {b!r} = {want:.7g}, but yours is {value:.7g}.",
            f"{what} 应为 2*{a!r}*{x!r} + {b!r} = {want:.7g}，但你的结果是 {value:.7g}。",
            evidence=["values_differ"],
        )


def test_derivative_returns_float(learner):
    cases = [("x**2 + 2*x + 1", 3.0), ("sin(x) * exp(x)", 0.7)]
    for (name, x), value in zip(cases, learner.run(derivative_run, cases)):
        what = f"derivative(f, {x!r}), f(x) = {name}"
        if isinstance(value, torch.Tensor):
            fail(
                f"{what} should be a Python float, but yours is {describe(value)}. x.grad is a "
                "tensor; .item() (or float(...)) gives the number.",
                f"{what} 应该是 Python 浮点数，但你的结果是 {describe(value)}。x.grad 是张量；"
                ".item()（或 float(...)）才会给出数值。",
                evidence=["wrong_type", "tensor_instead_of_float"],
            )
        if not isinstance(value, float):
            fail(
                f"{what} should be a Python float, but yours is {describe(value)}; .item() of "
                "a one-element tensor gives a Python float.",
                f"{what} 应该是 Python 浮点数，但你的结果是 {describe(value)}；对单元素张量调用 "
                ".item() 就能得到 Python 浮点数。",
                evidence=["wrong_type"],
            )


def test_derivative_integer_x(learner, reference):
    cases = [("x**2 + 2*x + 1", 3), ("x**3 - 4*x", -2)]
    _check_derivatives(cases, learner.run(derivative_run, cases), derivative_run(reference, cases))


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


def test_gradients_unused_input_is_zero(learner, reference, device, rng):
    xs = [_randn(rng, 4).to(device), _randn(rng, 4).to(device), _randn(rng, 2, 3).to(device)]
    name = "f(x, y, z) = sum(x * y)"
    got = learner.run(gradients_run, name, xs, 1)["results"][0]
    want = gradients_run(reference, name, xs, 1)["results"][0]
    _compare_grads(got, want, name)


def test_gradients_twice_same_answer(learner, reference, device, rng):
    name = "f(w, b, X, y) = mean((X @ w + b - y)**2)"
    xs = [_randn(rng, 3), _randn(rng), _randn(rng, 6, 3), _randn(rng, 6)]
    xs = [x.to(device) for x in xs]
    first, second = learner.run(gradients_run, name, xs, 2)["results"]
    want = gradients_run(reference, name, xs, 1)["results"][0]
    call = _call(name)
    _compare_grads(first, want, name)
    second = _grad_tuple(second, len(want), f"{call}, {name}")
    for i, (g, w) in enumerate(zip(second, want)):
        if not isinstance(g, torch.Tensor) or g.shape != w.shape:
            continue
        g, w = g.detach().cpu(), w.cpu()
        if torch.allclose(g, w, rtol=1e-4, atol=1e-6):
            continue
        if torch.allclose(g, 2 * w, rtol=1e-4, atol=1e-6):
            fail(
                f"Called a second time with the same inputs, {call} returned twice the gradient "
                f"({call}[{i}], {name}): backward() adds into .grad, so the first call's gradient "
                "was still there. Never accumulate into the caller's tensors: use "
                "torch.autograd.grad, or fresh leaves for every call.",
                f"用相同的输入第二次调用 {call} 时，返回的梯度变成了两倍（{call}[{i}]，{name}）："
                "backward() 会累加进 .grad，第一次调用的梯度还留在那里。不要在调用者的张量上累加："
                "请使用 torch.autograd.grad，或每次调用都用新的叶子张量。",
                evidence=["values_differ", "gradients_accumulate"],
            )
        index = int((~torch.isclose(g, w, rtol=1e-4, atol=1e-6)).reshape(-1).nonzero()[0])
        fail(
            f"Called a second time with the same inputs, {call} returned a different answer: "
            f"{call}[{i}] (flattened element {index}) is {g.reshape(-1)[index]:.6g} on the second "
            f"call, {w.reshape(-1)[index]:.6g} on the first. The second call must not depend on "
            "the first.",
            f"用相同的输入第二次调用 {call} 时，结果不同了：{call}[{i}]（展平后第 {index} 个元素）"
            f"第二次为 {g.reshape(-1)[index]:.6g}，第一次为 {w.reshape(-1)[index]:.6g}。"
            "第二次调用不应受第一次调用的影响。",
            evidence=["values_differ"],
        )


def test_gradients_leave_inputs_alone(learner, reference, device, rng):
    # a: a plain tensor; p: requires grad and already holds a gradient; q: requires grad, no .grad.
    a = _randn(rng, 5).to(device)
    p = _randn(rng, 5).to(device).requires_grad_(True)
    p.grad = _randn(rng, 5).to(device)
    q = _randn(rng, 2, 2).to(device).requires_grad_(True)
    xs = [a, p, q]
    name = "f(a, p, q) = sum(a * p) + sum(q**2)"
    run = learner.run(gradients_run, name, xs, 1)
    want = gradients_run(reference, name, xs, 1)["results"][0]
    _input_changes(xs, run["inputs"], name)
    _compare_grads(run["results"][0], want, name, " [p.requires_grad = True, p.grad != None]")


def test_gradients_non_contiguous(learner, reference, device, rng):
    X = _randn(rng, 5, 4).to(device).t()  # a transposed view, shape (4, 5)
    w = _randn(rng, 10).to(device)[::2]  # a sliced view, shape (5,)
    name = "f(X, w) = sum((X @ w)**2)"
    got = learner.run(gradients_run, name, [X, w], 1)["results"][0]
    want = gradients_run(reference, name, [X, w], 1)["results"][0]
    _compare_grads(got, want, name, " [X = randn(5, 4).t(), w = randn(10)[::2]]")


def test_gradients_dtype_and_device(learner, reference, device, rng):
    # a float64 input next to float32 ones; c is unused (its zeros must be made on its device).
    originals = [_randn(rng, 3, dtype=torch.float64), _randn(rng, 2, 3), _randn(rng, 4)]
    xs = [x.to(device) for x in originals]
    name = "f(a, B, c) = sum(B * a.float())"
    got = learner.run(gradients_run, name, xs, 1)["results"][0]
    # On meta only shapes, dtypes and devices can be compared, so the reference runs on the CPU
    # originals there (autograd on meta costs a second of lazy imports in each process).
    want = gradients_run(reference, name, originals if device == "meta" else xs, 1)["results"][0]
    want = tuple(w.to(device) for w in want)
    _compare_grads(got, want, name, f" [a.dtype = float64, device = {device}]", none_ok=True)


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
                f"但你的结果是 {describe(got)}。",
                evidence=["wrong_type"],
            )
        if len(got) != len(xs) or not all(isinstance(g, torch.Tensor) for g in got):
            fail(
                f"{call} should return a tuple of {len(xs)} tensors, but yours holds "
                f"{', '.join(describe(g) for g in got) or 'nothing'}.",
                f"{call} 应该返回包含 {len(xs)} 个张量的元组，但你的结果包含 "
                f"{', '.join(describe(g) for g in got) or '空'}。",
                evidence=["wrong_type"],
            )
