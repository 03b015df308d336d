"""Hidden tests of exercise-16: manual gradient descent.

Pitfalls from the seeds (003 §3-4, the hand-written linear regression of 003 §4.3): the update
must run under torch.no_grad() (an in-place update of a leaf that requires grad is refused, and
`w = w - lr * w.grad` makes w a new tensor whose .grad is never filled); gradients accumulate,
so they must be zeroed every step (003 §3.2, the loss "oscillates or diverges", 003 §5.1); the
tutorial's w and b of shape (1,) with X of shape (n, 1) turn into the (n, 1) versus (n,)
broadcasting trap when y is 1-D (003 §2.4: X @ w of shape (n, 1) minus y of shape (n,) is an
(n, n) matrix, and its mean is not the MSE); w and b start at zero here; the losses to log are
Python floats (loss.item()); no optimizer and no nn.Linear, the point is to write the step;
and the step goes against the gradient (w -= lr * w.grad): with += the loss climbs.

When the loss curve differs from the reference, the run is replayed here with each classic
mistake to name it.

Each test judges one requirement (see `requirements` in exercise.yaml). The training itself is
judged by the loss and parameter tests; the others look at what their requirement is about and
run the training in a scenario that brings an exception back as data (fit_safely), so that code
which crashes in its update loop loses the training requirement, not also the dtype, the shapes,
the views or the start. The dtype and device test looks at the learner's own w and b (with no
steps at all on the meta device), the views test compares the learner on views with the same
learner on contiguous copies, and only test_leaves_inputs_alone judges "do not modify X or y"
(input_check is off elsewhere).
"""

import ast
import functools
import math
import re
from contextlib import contextmanager

import torch

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import (
    LearnerRaised,
    as_floats,
    assert_close,
    assert_device,
    assert_dtype,
    assert_not_forbidden,
    compare_losses,
    describe,
    describe_zh,
    expect_tensor,
    fail,
)
from grader.testing.checks import CheckFailed, assert_unchanged
from grader.testing.training import diverged, diverged_story

# -- scenarios: run next to the learner's code -------------------------------------------------


def fit_safely(module, X, y, lr, steps, global_seed=0):
    """module.fit_linear(X, y, lr, steps), with an exception brought back as data (an
    unfinished starter's NotImplementedError is raised as it is); X and y as they are after
    the call."""
    torch.manual_seed(global_seed)  # the same global state for every call compared
    try:
        answer = {"value": module.fit_linear(X, y, lr, steps)}
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - reported as data, judged by the training tests
        answer = {"error": f"{type(exc).__name__}: {exc}", "type": type(exc).__name__}
    answer["X"], answer["y"] = X, y
    return answer


def contiguous_and_views(module, X, y, lr, steps):
    """fit_linear on contiguous X and y, then on views holding the same values: X transposed
    twice (strides (1, n)) and y a column of a stacked matrix (stride 2)."""
    X_view = X.t().contiguous().t()
    y_view = torch.stack([y, torch.zeros_like(y)], dim=1)[:, 0]
    answers = {}
    for name, (a, b) in (("contiguous", (X, y)), ("views", (X_view, y_view))):
        torch.manual_seed(0)
        try:
            answers[name] = {"value": module.fit_linear(a, b, lr, steps)}
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - compared as data
            answers[name] = {"error": f"{type(exc).__name__}: {exc}", "type": type(exc).__name__}
    answers["X_view"], answers["y_view"] = X_view, y_view
    return answers


CASES = [  # (n, d, lr, steps)
    (32, 3, 0.1, 40),
    (20, 1, 0.05, 30),  # one feature, as in the tutorial's straight line
    (50, 5, 0.1, 25),
]


def _data(rng, n, d, dtype=torch.float32):
    X = torch.randn(n, d, generator=rng, dtype=dtype)
    w = torch.randn(d, generator=rng, dtype=dtype)
    y = X @ w + 0.5 + 0.1 * torch.randn(n, generator=rng, dtype=dtype)
    return X, y


def _what(n, d, lr, steps, note=""):
    return f"fit_linear(X, y, lr={lr}, steps={steps}) [X: ({n}, {d}), y: ({n},){note}]"


# -- what the learner returned ------------------------------------------------------------------


def _is_number(value):
    return type(value) in (int, float)


def _made_as_number(learner):
    """The names ("w", "b") that the learner's fit_linear returns as a Python number still 0
    after a few steps of a fit whose w and b both move: made as a number (b = 0.0), which
    backward() gives no .grad and the update never moves, or a tensor the update leaves out
    returned as a number (b.item()): the values cannot tell these two apart, and the story
    names both. A number that moved (.item() at the end) is not one of them."""
    rng = torch.Generator().manual_seed(0)
    X = torch.randn(8, 2, generator=rng)
    y = X @ torch.tensor([1.0, -1.0]) + 0.5
    try:
        run = learner.run(fit_safely, X, y, 0.1, 3)
    except LearnerFault:  # no answer to read: the failure found stays as it is
        return []
    got = run.get("value") if isinstance(run, dict) else None
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        return []
    return [name for name, v in zip(("w", "b"), got[:2]) if _is_number(v) and v == 0]


def _numbers_named(test):
    """A test whose check found w or b not a tensor (expect_tensor: "→ b should be a
    torch.Tensor, but yours is float 0.0") names a parameter made as a Python number, where the
    learner's own fit shows it: still 0 after steps that move it. At steps=0 the value alone
    cannot tell b = 0.0 from b.item() of a tensor still at 0; the catalogue's advice for a
    tensor turned into a number (no .item() at the end) stays where it is that, or unknown."""

    @functools.wraps(test)
    def named(*args, **kwargs):
        try:
            return test(*args, **kwargs)
        except CheckFailed as exc:
            if "not_a_tensor" not in exc.evidence or "learner" not in kwargs:
                raise
            told = [
                name
                for name in _made_as_number(kwargs["learner"])
                if f"→ {name} should be a torch.Tensor" in exc.message.en
            ]
            if not told:
                raise
            name = told[0]
            shape, shape_zh = ("()", "0 维") if name == "b" else ("(d,)", "形状为 (d,) 的")
            raise CheckFailed(
                Text(
                    f"{exc.message.en} Your fit returns {name} as the number 0 after steps that "
                    f"move it: {name} never moved. Either it was made as a Python number, which "
                    "takes part in the loss as a constant, gets no .grad from backward() and "
                    "never moves, or it is a tensor that your update step leaves out. Make it a "
                    f"tensor of shape {shape} that requires grad, as the task asks: "
                    f"torch.zeros({shape if name == 'b' else 'X.shape[1]'}, dtype=X.dtype, "
                    f"device=X.device, requires_grad=True), update it in every step as you "
                    f"update the others, and return {name}.detach() (a tensor, not a number).",
                    f"{exc.message.zh}你的函数在会让 {name} 改变的若干步之后返回的 {name} 仍是数字 0："
                    f"{name} 从未改变。要么它被创建成了 Python 数字，在损失中只是常数，backward() 不会给它 "
                    ".grad，它也就永远不会改变；要么它是张量，但你的更新步骤漏掉了它。请按题目要求把它创建成"
                    f"需要梯度的{shape_zh}张量：torch.zeros({shape if name == 'b' else 'X.shape[1]'}, "
                    "dtype=X.dtype, device=X.device, requires_grad=True)，在每一步中像更新其他参数一样"
                    f"更新它，并返回 {name}.detach()（张量，而不是数字）。",
                ),
                evidence=(*exc.evidence, "parameter_python_number"),
                data=exc.data,
            ) from None

    return named


def _unpack(got, what):
    if not isinstance(got, (tuple, list)) or len(got) != 3:
        fail(
            f"{what} should return a tuple (w, b, losses), but yours returned {describe(got)}.",
            f"{what} 应该返回元组 (w, b, losses)，但你的结果是 {describe_zh(got)}。",
            evidence=["wrong_type"],
        )
    if isinstance(got[0], (list, tuple)) and not isinstance(got[2], (list, tuple)):
        fail(
            f"{what} returned the losses first ({describe(got[0])}): the function returns "
            "(w, b, losses), in that order: return w.detach(), b.detach(), losses.",
            f"{what} 把损失放在了最前面（{describe_zh(got[0])}）：函数应按 (w, b, losses) 的顺序"
            "返回：return w.detach(), b.detach(), losses。",
            evidence=["wrong_type", "return_order_swapped"],
        )
    return got


def _parameters(got, d, what, strict=False):
    """w and b as returned. Only test_returns_plain_values is ``strict`` about their shapes;
    elsewhere a w of d elements and a b of one element are compared by value."""
    w, b, _ = _unpack(got, what)
    w = expect_tensor(w, f"{what} → w")
    b = expect_tensor(b, f"{what} → b")
    if not strict and w.numel() == d and b.numel() == 1:
        return w.reshape(d), b.reshape(())
    if tuple(w.shape) != (d,):
        fail(
            f"{what} → w should have shape ({d},), but yours has shape "
            f"{tuple(w.shape)}. Keep w 1-D: with X of shape (n, d), X @ w then has shape (n,), "
            "exactly like y.",
            f"{what} 返回的 w 形状应为 ({d},)，但你的结果形状为 {tuple(w.shape)}。请让 w 保持一维："
            "X 的形状为 (n, d) 时，X @ w 的形状就是 (n,)，与 y 完全一致。",
            evidence=["wrong_shape"],
        )
    if tuple(b.shape) != ():
        fail(
            f"{what} → b should be 0-dimensional (shape ()), but yours has shape "
            f"{tuple(b.shape)}: create it with torch.zeros(()) (or torch.tensor(0.0, ...)).",
            f"{what} 返回的 b 应该是 0 维的（形状为 ()），但你的结果形状为 {tuple(b.shape)}："
            "请用 torch.zeros(())（或 torch.tensor(0.0, ...)）创建它。",
            evidence=["wrong_shape"],
        )
    return w, b


def _losses(got, what):
    """The learner's losses as a float64 tensor (0-d tensors are accepted here; their type is
    judged by test_returns_plain_values)."""
    return as_floats(_unpack(got, what)[2], what)


# -- replaying the classic mistakes ---------------------------------------------------------------


def _mistake(kind, X, y, lr, steps):
    """Gradient descent with one classic mistake: its losses and its final w and b."""
    n, d = X.shape
    shape_w, shape_b = ((d, 1), (1,)) if kind == "column" else ((d,), ())
    w = torch.zeros(shape_w, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros(shape_b, dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        squared = (X @ w + b - y) ** 2  # "column": (n, 1) - (n,) is (n, n)
        loss = squared.sum() if kind == "sum" else squared.mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            sign = -1 if kind == "ascent" else 1  # "ascent": w += lr * w.grad climbs the loss
            w -= sign * lr * w.grad
            b -= sign * lr * b.grad
        if kind not in ("never_zero", "never_zero_w"):
            w.grad.zero_()
        if kind not in ("never_zero", "never_zero_b"):
            b.grad.zero_()
    return {
        "losses": torch.tensor(losses, dtype=torch.float64),
        "w": w.detach().reshape(d),
        "b": b.detach().reshape(()),
    }


STORIES = {
    "ascent": (
        "gradient_ascent",
        "the update adds the gradient (w += lr * w.grad), so every step climbs the loss; "
        "descent moves against the gradient: w -= lr * w.grad",
        "更新时加上了梯度（w += lr * w.grad），于是每一步都让损失变大；下降要逆着梯度走："
        "w -= lr * w.grad",
    ),
    "never_zero": (
        "gradients_accumulate",
        "the gradients are never zeroed and pile up step after step; zero w.grad and b.grad "
        "after every update",
        "梯度从不清零、逐步累加；每次更新之后都要把 w.grad 和 b.grad 清零",
    ),
    # one parameter's gradient zeroed, the other's left to pile up: right for two steps, then
    # the curve drifts (per parameter)
    "never_zero_w": (
        "gradients_accumulate",
        "b.grad is zeroed after every update but w.grad never is, so w's gradients pile up step "
        "after step (the losses are right for two steps, then drift); zero w.grad as well",
        "每次更新之后 b.grad 被清零了，但 w.grad 从未清零，于是 w 的梯度逐步累加（损失前两步正确，"
        "之后逐渐偏离）；请把 w.grad 也清零",
    ),
    "never_zero_b": (
        "gradients_accumulate",
        "w.grad is zeroed after every update but b.grad never is, so b's gradients pile up step "
        "after step (the losses are right for two steps, then drift); zero b.grad as well",
        "每次更新之后 w.grad 被清零了，但 b.grad 从未清零，于是 b 的梯度逐步累加（损失前两步正确，"
        "之后逐渐偏离）；请把 b.grad 也清零",
    ),
    "column": (
        "broadcast_shape",
        "the loss is computed over an (n, n) matrix: a prediction of shape (n, 1) minus y of "
        "shape (n,) broadcasts to (n, n), so the model only learns the mean of y; keep w of "
        "shape (d,) (or compare with y.view(-1, 1))",
        "损失是在 (n, n) 矩阵上计算的：形状为 (n, 1) 的预测减去形状为 (n,) 的 y 会被广播成 "
        "(n, n)，于是模型只学到了 y 的均值；请让 w 的形状为 (d,)（或与 y.view(-1, 1) 比较）",
    ),
    "sum": (
        "scaled_by_size",
        "the loss is the sum of the squared errors, not their mean: every loss is n times the "
        "mean squared error and every gradient n times larger, so each step goes n times too "
        "far and the run can blow up; use .mean()",
        "损失是平方误差之和，而不是它们的均值：每个损失都是均方误差的 n 倍，每个梯度也大了 n 倍，"
        "于是每一步都走得太远 n 倍，训练可能发散；请用 .mean()",
    ),
}


def _compare_curves(got, want, what, replay, explain=None):
    """The learner's curve against the reference's; a replayed classic mistake is named
    (``explain(got, want)`` may fail first with what the learner's own run shows)."""
    compare_losses(
        got,
        want,
        what,
        per="step",
        explain=explain,
        mistakes=[
            (
                lambda kind=kind: replay(kind)["losses"],
                f"the losses are those of gradient descent where {en}",
                f"损失的变化与这种梯度下降完全一样：{zh}",
                ["values_differ", evidence],
            )
            for kind, (evidence, en, zh) in STORIES.items()
        ],
    )


def _compare_parameters(w, b, want_w, want_b, what, replay, rtol=1e-4, atol=1e-5, explain=None):
    """w and b against the reference's; a classic mistake is named when its replay matches
    (``explain()`` may fail first with what the learner's own run shows)."""

    def close(got, want):
        return got.shape == want.shape and torch.allclose(
            got.detach().cpu().double(), want.detach().cpu().double(), rtol=rtol, atol=atol
        )

    if not (close(w, want_w) and close(b, want_b)):
        if explain is not None:
            explain()
        for kind, (evidence, en, zh) in STORIES.items():
            mistake = replay(kind)
            if close(w, mistake["w"]) and close(b, mistake["b"]):
                fail(
                    f"{what}: the learned w and b are those of gradient descent where {en}.",
                    f"{what}：学到的 w 和 b 与这种梯度下降的结果完全一样：{zh}。",
                    evidence=["values_differ", evidence],
                )
    # Values only: the dtype and device have their own test.
    for name, got, want in (("w", w, want_w), ("b", b, want_b)):
        assert_close(
            got,
            want,
            f"{what} → {name}",
            rtol=rtol,
            atol=atol,
            check_dtype=False,
            check_device=False,
        )


# -- what the loop's own lines show ---------------------------------------------------------------


def _loops(source):
    """The for and while loops of the learner's file, or () when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    return [node for node in ast.walk(tree) if isinstance(node, (ast.For, ast.While))]


def _in_order(body):
    """The simple statements of a loop body in the order they run, those inside ``with``,
    ``if`` and ``try`` blocks included (a nested loop's body is its own loop)."""
    for stmt in body:
        if isinstance(stmt, (ast.For, ast.While, ast.FunctionDef, ast.ClassDef)):
            continue
        if isinstance(stmt, (ast.With, ast.If, ast.Try)):
            yield from _in_order(stmt.body)
            for handler in getattr(stmt, "handlers", ()):
                yield from _in_order(handler.body)
            yield from _in_order(getattr(stmt, "orelse", ()))
            yield from _in_order(getattr(stmt, "finalbody", ()))
            continue
        yield stmt


def _grad_owner(node):
    """``"w"`` for the expression ``w.grad`` (or ``w.grad.data``), else None."""
    if isinstance(node, ast.Attribute) and node.attr == "data":
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "grad":
        return ast.unparse(node.value)
    return None


def _cleared(stmt):
    """The tensor whose gradient ``stmt`` clears (``w.grad.zero_()``, ``w.grad = None``, ``w.grad
    = torch.zeros_like(w)``), or None."""
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        if isinstance(func, ast.Attribute) and func.attr == "zero_":
            return _grad_owner(func.value)
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
        return _grad_owner(stmt.targets[0])
    return None


def _reads_grad(stmt, owner):
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == "grad"
        and isinstance(node.ctx, ast.Load)
        and ast.unparse(node.value) == owner
        for node in ast.walk(stmt)
    )


def _calls_backward(stmt):
    return any(
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "backward"
        for node in ast.walk(stmt)
    )


def _code(source, stmt):
    return source.splitlines()[stmt.lineno - 1].strip()


def _cleared_before_use(source):
    """((line, code) of a gradient cleared after backward(), (line, code) of the statement that
    reads that gradient next, before any other backward()), for the first such pair in a loop
    of the learner's file, or None: the update that reads it finds zeros (or None)."""
    for loop in _loops(source):
        after_backward, cleared = False, {}
        for stmt in _in_order(loop.body):
            if _calls_backward(stmt):
                after_backward, cleared = True, {}
                continue
            owner = _cleared(stmt)
            if owner is not None:
                if after_backward:
                    cleared.setdefault(owner, stmt)
                continue
            for name, clear in cleared.items():
                if _reads_grad(stmt, name):
                    return (clear.lineno, _code(source, clear)), (stmt.lineno, _code(source, stmt))
    return None


def _cleared_before_backward(source, line):
    """(line, code) when the statement on ``line`` clears a gradient inside a loop before that
    loop's first backward(), else None: on the first pass .grad is still None there."""
    for loop in _loops(source):
        for stmt in _in_order(loop.body):
            if _calls_backward(stmt):
                break
            if stmt.lineno == line and _cleared(stmt) is not None:
                return line, _code(source, stmt)
    return None


def _parameter_names(tree):
    """The names whose ``.grad`` the learner's file reads: its parameters (``w``, ``b``)."""
    return {
        node.value.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and node.attr == "grad"
        and isinstance(node.value, ast.Name)
    }


def _bound_names(target):
    """The names an assignment target binds: ``w``, ``w, b`` (not ``w.grad`` or ``w[0]``)."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _bound_names(element)]
    if isinstance(target, ast.Starred):
        return _bound_names(target.value)
    return []


def _parameter_bindings(source, before_backward=False):
    """(statement, names) for each assignment in a loop of the learner's file that binds a
    parameter (a name whose .grad the file reads), in the order the loop runs them; ``names``:
    the parameters it binds, in the target's order. Each loop is walked only up to its first
    backward() where ``before_backward``. Nothing where the file does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return
    names = _parameter_names(tree)
    for loop in _loops(source):
        for stmt in _in_order(loop.body):
            if before_backward and _calls_backward(stmt):
                break
            if isinstance(stmt, (ast.Assign, ast.AnnAssign)):
                targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
                bound = [n for target in targets for n in _bound_names(target) if n in names]
                if bound:
                    yield stmt, bound


def _rebound_in_loop(source, before_backward=False):
    """(line, code) of the first statement in a loop of the learner's file that binds a
    parameter (a name whose .grad the file reads) to a new tensor (``w = torch.zeros(...)``,
    ``w = w0.clone().requires_grad_()``, ``w = w.detach().requires_grad_()``), only before
    that loop's first backward() where ``before_backward``; None where there is none."""
    for stmt, _ in _parameter_bindings(source, before_backward):
        return stmt.lineno, _code(source, stmt)
    return None


def _rebound_story(source, before_backward=False):
    """(English, Chinese) naming the learner's line that binds a parameter anew inside the
    loop, or ("", "") where no such line is found."""
    found = _rebound_in_loop(source, before_backward)
    if found is None:
        return "", ""
    line, code = found
    return (
        f" Line {line}, `{code}`, binds a parameter to a new tensor inside the loop, one that "
        "does not hold the updates made so far.",
        f"第 {line} 行的 `{code}` 在循环里把参数绑定到了一个新的张量上，它并不包含此前的更新。",
    )


_RECREATED_FIX = (
    " Create w and b once, before the loop, and update those same tensors in place under "
    "torch.no_grad() (w -= lr * w.grad); a tensor bound anew must be the updated one: "
    "w = (w - lr * w.grad).detach().requires_grad_().",
    "请在循环之前只创建一次 w 和 b，并在 torch.no_grad() 下原地更新这两个张量本身"
    "（w -= lr * w.grad）；如果要重新绑定，绑定的必须是更新后的值："
    "w = (w - lr * w.grad).detach().requires_grad_()。",
)


def _restarts(learner, X, y, lr, steps, what, source):
    """Fails with ``parameters_recreated_in_loop`` when the learner's own runs show that every
    step starts again from the same w and b: after ``steps`` steps its w and b are exactly
    those it returns for one step, they are not those it returns for no step (that is
    :func:`_never_moved`), and every loss it recorded equals the first. Otherwise returns."""
    if steps < 2:
        return
    trained = learner.run(fit_safely, X, y, lr, steps)
    once = learner.run(fit_safely, X, y, lr, 1)
    start = learner.run(fit_safely, X, y, lr, 0)
    if "value" not in trained or "value" not in once:
        return
    d = X.shape[1]
    try:
        losses = as_floats(_unpack(trained["value"], what)[2], what)
        (w, b), (w1, b1) = (_parameters(r["value"], d, what) for r in (trained, once))
        zero = _parameters(start["value"], d, what) if "value" in start else None
    except CheckFailed:
        return

    def same(one, other):
        return all(
            a.shape == c.shape and torch.equal(a.detach().cpu(), c.detach().cpu())
            for a, c in zip(one, other)
        )

    if not (same((w, b), (w1, b1)) and losses.numel() == steps and _flat(losses)):
        return
    if zero is not None and same((w, b), zero):
        return  # never moved at all: _never_moved says so
    line_en, line_zh = _rebound_story(source, before_backward=True)
    fail(
        f"{what}: every step starts again from the same w and b: after {steps} steps they are "
        "exactly what one step gives (your own result with steps=1), and every loss equals "
        f"the first ({losses[0]:.6g}). w and b are created (or reset) inside the loop, so "
        f"each step's update is thrown away.{line_en}{_RECREATED_FIX[0]}",
        f"{what}：每一步都从相同的 w 和 b 重新开始：走了 {steps} 步之后，它们与只走一步的结果"
        f"（你自己在 steps=1 时的结果）完全相同，每个损失都等于第一个（{losses[0]:.6g}）。w 和 b "
        f"是在循环里创建（或重置）的，所以每一步的更新都被丢掉了。{line_zh}{_RECREATED_FIX[1]}",
        evidence=["values_differ", "parameters_never_move", "parameters_recreated_in_loop"],
    )


def _flat(losses):
    """Every loss equals the first (and there are at least two of them)."""
    return (
        losses.numel() >= 2
        and bool(torch.isfinite(losses).all())
        and torch.allclose(losses, losses[:1].expand_as(losses), rtol=1e-6, atol=0)
    )


def _never_moved(learner, X, y, lr, steps, what, source):
    """Fails with ``parameters_never_move`` when the learner's own runs show it: after ``steps``
    steps its w and b are exactly those it returns for no steps at all (both runs seeded
    alike), and every loss it recorded equals the first. Otherwise returns, and the test goes
    on to its other checks."""
    if steps < 2:
        return
    trained = learner.run(fit_safely, X, y, lr, steps)
    start = learner.run(fit_safely, X, y, lr, 0)
    if "value" not in trained or "value" not in start:
        return
    d = X.shape[1]
    try:
        losses = as_floats(_unpack(trained["value"], what)[2], what)
        moved = [_parameters(trained["value"], d, what), _parameters(start["value"], d, what)]
    except CheckFailed:
        return  # what it returned is judged by the tests' own checks
    (w, b), (w0, b0) = moved
    same = all(
        a.shape == c.shape and torch.equal(a.detach().cpu(), c.detach().cpu())
        for a, c in ((w, w0), (b, b0))
    )
    if not (same and losses.numel() == steps and _flat(losses)):
        return
    en = (
        f"{what}: w and b never moved: after {steps} steps they are exactly where they started "
        f"(your own result with steps=0), and every loss equals the first ({losses[0]:.6g})."
    )
    zh = (
        f"{what}：w 和 b 从未移动：走了 {steps} 步之后，它们与起点（你自己在 steps=0 时的结果）完全相同，"
        f"每个损失都等于第一个（{losses[0]:.6g}）。"
    )
    found = _cleared_before_use(source)
    rebound_en, rebound_zh = _rebound_story(source)
    if found is None and rebound_en:
        # w and b bound anew in the loop, to tensors without the update: not an update that
        # missed them
        fail(
            f"{en}{rebound_en} Each step's update is lost.{_RECREATED_FIX[0]}",
            f"{zh}{rebound_zh}每一步的更新都丢掉了。{_RECREATED_FIX[1]}",
            evidence=["values_differ", "parameters_never_move", "parameters_recreated_in_loop"],
        )
    if found is not None:
        (line, code), (use, use_code) = found
        en += (
            f" Line {line}, `{code}`, clears the gradient after backward() and before line "
            f"{use}, `{use_code}`, reads it, so every update subtracts zeros. Zero the "
            "gradients after the update, as the last thing in the step."
        )
        zh += (
            f"第 {line} 行的 `{code}` 在 backward() 之后、第 {use} 行的 `{use_code}` 读取梯度之前就把"
            "梯度清零了，所以每次更新减去的都是 0。请在更新之后、作为这一步的最后一件事清零梯度。"
        )
    else:
        en += (
            " The updates never reached them: update w and b themselves, in place under "
            "torch.no_grad() (w -= lr * w.grad), with the gradients of the step's backward(), "
            "and zero the gradients only after the update."
        )
        zh += (
            "更新从未作用到它们身上：请在 torch.no_grad() 下原地更新 w 和 b 本身"
            "（w -= lr * w.grad），用的是这一步 backward() 得到的梯度，并且只在更新之后清零梯度。"
        )
    fail(en, zh, evidence=["values_differ", "parameters_never_move"])


def _ratio(got, want):
    """The one number r with got == r * want (every element, within the tests' tolerance), or
    None where there is none (or want is all zeros)."""
    got, want = got.detach().cpu().double().reshape(-1), want.detach().cpu().double().reshape(-1)
    if got.shape != want.shape or not bool(torch.isfinite(got).all()):
        return None
    scale = float((want * want).sum())
    if scale == 0.0:
        return None
    r = float((got * want).sum()) / scale
    return r if torch.allclose(got, r * want, rtol=1e-4, atol=1e-7) else None


def frozen_story(loss, want_loss, steps):
    """(evidence, English, Chinese) where, from the learner's own steps=1 run, the first loss is
    right and one parameter is still exactly zero after the first step while gradient descent
    moves it, the other one's step being right: that parameter is never updated (a Python
    number such as b = 0.0, a tensor made without requires_grad, or an update that leaves it
    out). None otherwise."""
    if not (math.isfinite(loss) and math.isclose(loss, want_loss, rel_tol=1e-5, abs_tol=1e-7)):
        return None
    frozen, right = [], []
    for name, (got, want) in steps.items():
        got, want = got.detach().cpu().double(), want.detach().cpu().double()
        if bool((got == 0).all()) and bool((want != 0).any()):
            frozen.append(name)
        elif _ratio(got, want) is not None and math.isclose(_ratio(got, want), 1.0, rel_tol=1e-4):
            right.append(name)
    if len(frozen) != 1 or len(right) != len(steps) - 1:
        return None
    (name,) = frozen
    (other,) = right
    shape = "()" if name == "b" else "(X.shape[1],)"
    return (
        "parameter_never_updated",
        f"your first loss is right and {other}'s first step is gradient descent's, but {name} is "
        f"still 0 after it: {name} is never updated. A Python number ({name} = 0.0) or a tensor "
        f"made without requires_grad=True gets no gradient from backward(), and an update that "
        f"leaves {name} out changes nothing. Create it as {other} is, "
        f"{name} = torch.zeros({shape}, dtype=X.dtype, device=X.device, requires_grad=True), and "
        f"update it the same way: {name} -= lr * {name}.grad (then zero {name}.grad)",
        f"你的第一个损失是对的，{other} 的第一步也与梯度下降一致，但 {name} 在这一步之后仍然是 0："
        f"{name} 从未被更新。Python 数（{name} = 0.0）或没有设置 requires_grad=True 的张量不会从 "
        f"backward() 得到梯度，而漏掉 {name} 的更新也不会改变它。请像 {other} 一样创建它："
        f"{name} = torch.zeros({shape}, dtype=X.dtype, device=X.device, requires_grad=True)，"
        f"并用同样的方式更新：{name} -= lr * {name}.grad（然后把 {name}.grad 清零）",
    )


def step_scale_story(loss, want_loss, steps, n):
    """(evidence, English, Chinese) for the first step of gradient descent from the learner's
    own steps=1 run: ``loss`` its first loss, ``steps`` {"w": (yours, expected), "b": ...}
    the parameters after that one step (both start at zero, so a step is the parameter
    itself). A first loss that is the square root of the expected one is an RMSE; a right
    first loss with a step exactly 1/2, n or n/2 times gradient descent's names the factor 2
    or the 1/n missing from a hand-written gradient, per parameter. None otherwise."""
    if not (math.isfinite(loss) and math.isfinite(want_loss)) or want_loss <= 0:
        return None
    if not math.isclose(loss, want_loss, rel_tol=1e-5, abs_tol=1e-7):
        if math.isclose(loss, math.sqrt(want_loss), rel_tol=1e-5, abs_tol=1e-7):
            return (
                "loss_is_rmse",
                f"the first loss, {loss:.6g}, is the square root of the mean squared error "
                f"({want_loss:.6g}): your loss is the RMSE, torch.sqrt(((X @ w + b - y) ** 2)."
                "mean()). The loss asked for is the mean squared error itself, with no sqrt; the "
                "square root also changes every gradient (it divides it by 2 * sqrt(MSE)), so "
                "the steps differ too",
                f"第一个损失 {loss:.6g} 是均方误差（{want_loss:.6g}）的平方根：你的损失是 RMSE，即 "
                "torch.sqrt(((X @ w + b - y) ** 2).mean())。题目要求的损失是均方误差本身，不开平方根；"
                "平方根还会改变每个梯度（把它除以 2 * sqrt(MSE)），所以每一步也都不同",
            )
        return None
    if n < 3:  # n / 2 or n would be 1 (a right step) or 1/2 (a missing factor 2)
        return None
    kinds = {
        0.5: (
            "exactly half of",
            "恰好是梯度下降一步的一半",
            "the factor 2 from the derivative of the square is missing: d/dw of "
            "mean((X @ w + b - y) ** 2) is 2 * X.T @ (X @ w + b - y) / n, and d/db is "
            "2 * (X @ w + b - y).mean()",
            "缺少了平方求导得到的因子 2：mean((X @ w + b - y) ** 2) 对 w 的导数是 "
            "2 * X.T @ (X @ w + b - y) / n，对 b 的导数是 2 * (X @ w + b - y).mean()",
        ),
        float(n): (
            f"exactly n = {n} times",
            f"恰好是梯度下降一步的 n = {n} 倍",
            "the 1/n of the mean is missing: the gradient is summed over the samples where "
            "the loss averages them (divide by n, or use .mean())",
            "缺少了均值带来的 1/n：损失对样本求平均，梯度却对样本求了和（请除以 n，或者用 .mean()）",
        ),
        1 / n: (
            f"exactly 1/n = 1/{n} of",
            f"恰好是梯度下降一步的 1/n = 1/{n}",
            "the gradient is divided by n once more: the mean squared error already divides by "
            "n, and the w.grad and b.grad that backward() computes include it, so step with "
            "lr * w.grad as it is (no / n, no / len(X))",
            "梯度又被多除了一次 n：均方误差本身已经除以了 n，backward() 算出的 w.grad 和 b.grad "
            "已经包含了它，所以请直接用 lr * w.grad 更新（不要再 / n 或 / len(X)）",
        ),
        n / 2: (
            f"exactly n / 2 = {n / 2:g} times",
            f"恰好是梯度下降一步的 n / 2 = {n / 2:g} 倍",
            "both the factor 2 of the square's derivative and the 1/n of the mean are missing: "
            "the gradient for w is 2 * X.T @ (X @ w + b - y) / n, for b 2 * (X @ w + b - y).mean()",
            "平方求导得到的因子 2 和均值带来的 1/n 都缺少了：w 的梯度是 2 * X.T @ (X @ w + b - y) / n，"
            "b 的梯度是 2 * (X @ w + b - y).mean()",
        ),
    }
    found = {}
    for name, (got, want) in steps.items():
        r = _ratio(got, want)
        if r is None:
            return None
        if math.isclose(r, 1.0, rel_tol=1e-4):
            continue
        kind = next((k for k in kinds if math.isclose(r, k, rel_tol=1e-4)), None)
        if kind is None:
            return None
        found.setdefault(kind, []).append(name)
    if len(found) != 1:  # none, or the parameters scaled differently: no one formula tells it
        return None
    ((kind, params),) = found.items()
    how_en, how_zh, why_en, why_zh = kinds[kind]
    if kind == 1 / n and len(params) == len(steps):
        # every step 1/n of descent's: the update divided by n, whatever the gradient's source
        return (
            "step_divided_by_n",
            f"your first loss is right, but the first step of w and b is {how_en} gradient "
            f"descent's: {why_en}",
            f"你的第一个损失是对的，但 w 和 b 的第一步{how_zh}：{why_zh}",
        )
    if kind == 1 / n:
        return None  # one parameter's step divided by n: no one formula tells it
    who, who_zh = " and ".join(params), " 和 ".join(params)
    rest = [p for p in steps if p not in params]
    right_en = f" ({rest[0]}'s step is right)" if rest else ""
    right_zh = f"（{rest[0]} 的一步是对的）" if rest else ""
    return (
        "hand_gradient_scaled",
        f"your first loss is right, but the first step of {who} is {how_en} gradient "
        f"descent's{right_en}: the gradient you step with is not the gradient of this loss; "
        f"{why_en} (loss.backward() computes it for you, into w.grad and b.grad)"
        + (
            ""
            if rest
            else "; where your gradients do come from backward(), the learning rate is off "
            "instead: step with lr itself"
        ),
        f"你的第一个损失是对的，但 {who_zh} 的第一步{how_zh}{right_zh}："
        f"你用来更新的梯度并不是这个损失的梯度；{why_zh}（loss.backward() 会替你把它算进 w.grad 和 "
        "b.grad）"
        + (
            ""
            if rest
            else "；如果你的梯度确实来自 backward()，那就是学习率不对：请直接用 lr 来更新"
        ),
    )


def _first_step(learner, reference, X, y, lr, what):
    """:func:`step_scale_story` of the learner's fit_linear with steps=1, failing with it where
    it holds; returns otherwise (a run that faults or returns something unreadable is judged
    by the tests' own checks)."""
    n, d = X.shape
    run = learner.run(fit_safely, X, y, lr, 1)
    if "value" not in run:
        return
    try:
        w, b = _parameters(run["value"], d, what)
        losses = as_floats(_unpack(run["value"], what)[2], what)
    except CheckFailed:
        return
    want_w, want_b, want_losses = reference.fit_linear(X, y, lr, 1)
    if losses.numel() != 1 or len(want_losses) != 1:
        return
    steps = {"w": (w, want_w), "b": (b, want_b)}
    story = frozen_story(float(losses[0]), float(want_losses[0]), steps)
    if story is None:
        story = step_scale_story(float(losses[0]), float(want_losses[0]), steps, n)
    if story is not None:
        evidence, en, zh = story
        fail(f"{what}: {en}.", f"{what}：{zh}。", evidence=["values_differ", evidence])


# -- a parameter made, then copied by .to() ------------------------------------------------------

_COPIES = {"to", "double", "float", "half", "cuda", "type"}


def _copied_leaf(source):
    """(line, code) of a parameter created with requires_grad and then converted in the same
    expression (``torch.zeros(d, requires_grad=True).to(X)``), or None. A .to() that changes the
    dtype or device returns a new tensor computed from the leaf: not a leaf, its .grad is never
    filled."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    lines = source.splitlines()
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in _COPIES
            and isinstance(node.func.value, ast.Call)
        ):
            continue
        inner = node.func.value
        flagged = any(
            k.arg == "requires_grad" and isinstance(k.value, ast.Constant) and k.value.value
            for k in inner.keywords
        ) or (isinstance(inner.func, ast.Attribute) and inner.func.attr == "requires_grad_")
        if flagged:
            return node.lineno, lines[node.lineno - 1].strip()
    return None


def _sentence(text, stop="."):
    """``text`` ending with a full stop, for a sentence to follow."""
    text = text.rstrip()
    return text if text.endswith((".", "。")) else text + stop


@contextmanager
def _explain_raise(source, n=None):
    """fit_linear raising where its own lines show why, named in place of the catalogue's
    general advice: a .grad that is None because the parameter was created with requires_grad
    and then converted (.to(X)), because the gradient was cleared between backward() and the
    update that reads it, or because it is zeroed before the loop's first backward(); and, with
    ``n`` the number of samples, a loss of n elements (not reduced to their mean)."""
    try:
        yield
    except LearnerRaised as exc:
        story = None
        if "NoneType" in exc.text:
            line = exc.frames[-1].line if exc.frames else None
            story = _grad_none_story(source, line)
        elif n is not None and _unreduced(exc.text, n):
            story = _unreduced_story(n)
        elif _FLOAT_DTYPES_MIXED.search(exc.text):
            story = _remade_without_dtype_story(source)
        if story is not None:
            en, zh, tag = story
            exc.message = Text(
                f"{_sentence(exc.message.en)} {en}", f"{_sentence(exc.message.zh, '。')}{zh}"
            )
            exc.evidence = (*exc.evidence, tag)
        raise


_FLOAT_DTYPES_MIXED = re.compile(
    r"(must|to) have the same dtype|expected scalar type (Float|Double) but found (Float|Double)"
    r"|[Ff]ound dtype (Float|Double) but expected (Float|Double)"
)
_MAKERS = {"tensor", "as_tensor", "Tensor", "FloatTensor"}


def _remade_without_dtype(source):
    """(line, code, name) of a statement in a loop of the learner's file that binds a parameter
    (a name whose .grad the file reads) to ``torch.tensor(...)`` (or ``as_tensor``) made
    without ``dtype=``: from Python numbers it gets PyTorch's default float32. None where there
    is none."""
    for stmt, bound in _parameter_bindings(source):
        value = stmt.value
        if not (isinstance(stmt, ast.Assign) and isinstance(value, ast.Call)):
            continue
        func = value.func
        maker = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
        if (
            maker in _MAKERS
            and value.args
            and _python_numbers(value.args[0])
            and not any(k.arg == "dtype" for k in value.keywords)
        ):
            return stmt.lineno, _code(source, stmt), bound[0]
    return None


def _python_numbers(node):
    """The expression gives Python numbers (``w.tolist()``, ``b.item()``, ``float(...)``, a
    list or tuple display), from which torch.tensor takes the default dtype; a tensor
    argument would keep its own."""
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("tolist", "item"):
            return True
        if isinstance(func, ast.Name) and func.id in ("float", "list"):
            return True
    return False


def _remade_without_dtype_story(source):
    """(English, Chinese, evidence) naming the loop's line that makes a parameter anew
    without dtype= (:func:`_remade_without_dtype`), or None."""
    found = _remade_without_dtype(source) if source else None
    if found is None:
        return None
    line, code, name = found
    return (
        f"Line {line}, `{code}`, makes {name} anew in every step without dtype=: torch.tensor "
        "of Python numbers gets PyTorch's default float32 (and the CPU), whatever X's dtype "
        f"and device, so from the second step on {name} is float32 beside float64 data. Keep "
        f"the same {name} and update it in place under torch.no_grad() ({name} -= lr * "
        f"{name}.grad), or pass dtype=X.dtype, device=X.device.",
        f"第 {line} 行的 `{code}` 每一步都在没有 dtype= 的情况下重新创建 {name}：由 Python 数字创建的 "
        "torch.tensor 得到的是 PyTorch 的默认 float32（而且在 CPU 上），不管 X 的 dtype 和设备是什么，"
        f"所以从第二步起 {name} 就是 float32，而数据是 float64。请保留同一个 {name}，在 "
        f"torch.no_grad() 下原地更新它（{name} -= lr * {name}.grad），或者传入 dtype=X.dtype, "
        "device=X.device。",
        "float_dtypes_mixed",
    )


def _grad_none_story(source, line):
    """(English, Chinese, evidence) of a .grad that is None, from the learner's own lines and
    the ``line`` the error arose on; None where they show nothing."""
    found = _copied_leaf(source)
    if found is not None:
        line, code = found
        return (
            f"Line {line}, `{code}`, creates a leaf tensor and "
            "then converts it: when .to() changes the dtype or the device (float64 data, a "
            "GPU), it returns a new tensor computed from that leaf, not a leaf, so "
            "backward() never fills its .grad, which stays None. (On float32 data on the "
            "CPU it changes nothing, which is why it works there.) Create the parameter "
            "where it belongs in one go: torch.zeros(d, dtype=X.dtype, device=X.device, "
            "requires_grad=True), or call .requires_grad_() after .to().",
            f"第 {line} 行的 `{code}` 先创建了一个叶子张量，又对它做了"
            "转换：当 .to() 改变 dtype 或设备时（float64 的数据、GPU），它返回的是由那个叶子张量"
            "算出的新张量，而不是叶子张量，所以 backward() 永远不会填充它的 .grad，它一直是 None。"
            "（在 CPU 上的 float32 数据上它什么也不改变，所以在那里能运行。）请一次就在正确的位置"
            "创建参数：torch.zeros(d, dtype=X.dtype, device=X.device, requires_grad=True)，"
            "或者在 .to() 之后再调用 .requires_grad_()。",
            "converted_leaf_not_leaf",
        )
    if line is None:
        return None
    cleared = _cleared_before_use(source)
    if cleared is not None and cleared[1][0] == line:
        (at, code), (use, use_code) = cleared
        return (
            f"Line {at}, `{code}`, clears the gradient after backward() and before line {use}, "
            f"`{use_code}`, uses it, so the update finds None there. Use the gradient first and "
            "clear it after: the update under torch.no_grad(), then w.grad.zero_() and "
            "b.grad.zero_() as the last thing in the step.",
            f"第 {at} 行的 `{code}` 在 backward() 之后、第 {use} 行的 `{use_code}` 使用梯度之前就把"
            "它清掉了，所以更新时那里是 None。请先使用梯度、再清零：先在 torch.no_grad() 下更新，"
            "然后把 w.grad.zero_() 和 b.grad.zero_() 作为这一步的最后一件事。",
            "grad_cleared_before_use",
        )
    early = _cleared_before_backward(source, line)
    if early is not None:
        at, code = early
        return (
            f"Line {at}, `{code}`, runs before the loop's first backward(): until a backward() "
            "reaches a parameter, its .grad is None, so the first step fails there. Zero the "
            "gradients after the update, at the end of the step (or only where they exist: "
            "if w.grad is not None).",
            f"第 {at} 行的 `{code}` 在循环的第一次 backward() 之前执行：在某次 backward() 到达参数"
            "之前，它的 .grad 是 None，所以第一步就在这里出错。请在更新之后、这一步的最后清零梯度"
            "（或者只在梯度存在时清零：if w.grad is not None）。",
            "grad_zeroed_before_backward",
        )
    return None


# .item() on a loss that is not one number says how many it holds
_SCALAR = re.compile(r"a Tensor with (\d+) elements cannot be converted to Scalar")


def _unreduced(text, n):
    """The error of .item() on a loss of ``n`` elements, one per sample."""
    found = _SCALAR.search(text)
    return found is not None and int(found.group(1)) == n


def _unreduced_story(n):
    return (
        f"Your loss holds one value per sample ({n} of them), not one number: the squared "
        "errors were never averaged. .item() and backward() need a single number: take "
        "their mean, ((X @ w + b - y) ** 2).mean() (or F.mse_loss(X @ w + b, y)).",
        f"你的损失对每个样本各有一个值（共 {n} 个），而不是一个数：平方误差从未取平均。.item() 和 "
        "backward() 需要单个数：请取它们的均值，((X @ w + b - y) ** 2).mean()（或 "
        "F.mse_loss(X @ w + b, y)）。",
        "loss_not_reduced",
    )


# -- tests ----------------------------------------------------------------------------------------


def test_losses_match_reference(learner, reference, device, rng, attach, learner_source):
    for i, (n, d, lr, steps) in enumerate(CASES):
        X, y = (t.to(device) for t in _data(rng, n, d))
        what = _what(n, d, lr, steps)
        with _explain_raise(learner_source, n):
            got = _losses(learner.fit_linear(X, y, lr, steps), what)
        want = _losses(
            reference.fit_linear(X, y, lr, steps), Text("the reference solution", "参考答案")
        )
        if i == 0:
            attach("loss_curve", {"yours": got.tolist(), "expected": want.tolist()})
        _compare_curves(
            got,
            want,
            what,
            lambda kind, X=X, y=y, lr=lr, steps=steps: _mistake(kind, X, y, lr, steps),
            explain=lambda got, want, X=X, y=y, lr=lr, steps=steps, what=what: (
                _never_moved(learner, X, y, lr, steps, what, learner_source),
                _restarts(learner, X, y, lr, steps, what, learner_source),
                _first_step(learner, reference, X, y, lr, what),
            ),
        )


@_numbers_named
def test_parameters_match_reference(learner, reference, device, rng, learner_source):
    for n, d, lr, steps in CASES:
        X, y = (t.to(device) for t in _data(rng, n, d))
        what = _what(n, d, lr, steps)
        with _explain_raise(learner_source, n):
            got = learner.fit_linear(X, y, lr, steps)
        w, b = _parameters(got, d, what)
        want_w, want_b, _ = reference.fit_linear(X, y, lr, steps)
        losses = _losses_or_none(got)
        finite = all(bool(torch.isfinite(t.detach()).all()) for t in (w, b))
        if not finite and losses is not None and diverged(losses):
            evidence, en, zh = diverged_story(losses)  # not a division by zero: the steps
            fail(f"{what}: {en}.", f"{what}：{zh}。", evidence=["values_differ", evidence])
        replay = lambda kind, X=X, y=y, lr=lr, steps=steps: _mistake(kind, X, y, lr, steps)
        _compare_parameters(
            w,
            b,
            want_w,
            want_b,
            what,
            replay,
            explain=lambda X=X, y=y, lr=lr, steps=steps, what=what: (
                _never_moved(learner, X, y, lr, steps, what, learner_source),
                _restarts(learner, X, y, lr, steps, what, learner_source),
                _first_step(learner, reference, X, y, lr, what),
            ),
        )


@_numbers_named
def test_starts_at_zero(learner, reference, device, rng):
    n, d = 12, 3
    X, y = (t.to(device) for t in _data(rng, n, d))
    what = _what(n, d, 0.1, 0)
    result = learner.fit_linear(X, y, 0.1, 0)
    w, b = _parameters(result, d, what)
    want_w, want_b, _ = reference.fit_linear(X, y, 0.1, 0)
    for name, got, want in (("w", w, want_w), ("b", b, want_b)):
        if got.shape == want.shape and not torch.equal(got.detach().cpu(), want.cpu()):
            stepped = _losses_or_none(result)
            if stepped is not None and stepped.numel() > 0:
                # the loop ran although steps=0: its count is off, not the start
                fail(
                    f"With no steps at all, {what} should return the starting point, w and b "
                    f"all zeros, and no losses; yours took {stepped.numel()} step"
                    f"{'s' if stepped.numel() > 1 else ''} anyway (it returned "
                    f"{stepped.numel()} loss{'es' if stepped.numel() > 1 else ''}), so its "
                    f"{name} moved. The loop must run exactly steps times: for _ in "
                    "range(steps), not range(steps + 1) or while i <= steps.",
                    f"一步都不走时，{what} 应该返回起点，即全为零的 w 和 b，并且没有损失；你的代码却仍然"
                    f"走了 {stepped.numel()} 步（返回了 {stepped.numel()} 个损失），所以 {name} 变了。"
                    "循环必须恰好执行 steps 次：for _ in range(steps)，而不是 range(steps + 1) 或 "
                    "while i <= steps。",
                    evidence=["values_differ", "loop_count_off_by_one"],
                )
            fail(
                f"With no steps at all, {what} should return the starting point, w and b all "
                f"zeros; yours returned {name} = {got.detach().cpu().reshape(-1)[:4].tolist()}. "
                "Start from torch.zeros(...), not from torch.ones(...), random values "
                "(torch.randn) or uninitialised memory (torch.empty).",
                f"一步都不走时，{what} 应该返回起点，即全为零的 w 和 b；你返回的 {name} = "
                f"{got.detach().cpu().reshape(-1)[:4].tolist()}。请从 torch.zeros(...) 开始，"
                "而不是 torch.ones(...)、随机值（torch.randn）或未初始化的内存（torch.empty）。",
                evidence=["values_differ", "not_zero_init"],
            )
        assert_close(
            got, want, f"{what} → {name}", rtol=0, atol=0, check_dtype=False, check_device=False
        )
    # The first loss is measured at the start; code that crashes in its update loop is judged by
    # the training tests, not here.
    what = _what(n, d, 0.1, 1)
    run = learner.run(fit_safely, X, y, 0.1, 1)
    if "value" not in run:
        return
    got = _losses(run["value"], what)
    want = _losses(reference.fit_linear(X, y, 0.1, 1), Text("the reference solution", "参考答案"))
    if got.numel() != 1 or not torch.isclose(got[0], want[0], rtol=1e-5, atol=1e-7):
        first = f"{got[0]:.6g}" if got.numel() else "nothing"
        if got.numel() == 1 and torch.isclose(got[0], n * want[0], rtol=1e-5, atol=1e-7):
            fail(
                f"The first loss of {what} should be the loss at w = 0, b = 0, that is "
                f"mean(y**2) = {want[0]:.6g}; yours is {first}, exactly n = {n} times that: "
                "your loss is the sum of the squared errors, not their mean. Use .mean().",
                f"{what} 的第一个损失应该是 w = 0、b = 0 时的损失，即 mean(y**2) = {want[0]:.6g}；"
                f"你的是 {first}，恰好是它的 n = {n} 倍：你的损失是平方误差之和，而不是均值。"
                "请用 .mean()。",
                evidence=["values_differ", "scaled_by_size"],
            )
        story = step_scale_story(float(got[0]), float(want[0]), {}, n) if got.numel() == 1 else None
        if story is not None:
            evidence, en, zh = story
            fail(
                f"The first loss of {what} should be the loss at w = 0, b = 0, that is "
                f"mean(y**2) = {want[0]:.6g}: {en}.",
                f"{what} 的第一个损失应该是 w = 0、b = 0 时的损失，即 mean(y**2) = {want[0]:.6g}："
                f"{zh}。",
                evidence=["values_differ", evidence],
            )
        # w and b start at zero (checked above): the loss itself is computed another way
        fail(
            f"The first loss of {what} should be the loss at w = 0, b = 0, that is mean(y**2) = "
            f"{want[0]:.6g}; yours is {first}. Your w and b do start at zero (with steps=0 they "
            "come back as zeros), so your loss is computed another way: it is the mean of the "
            "squared errors, ((X @ w + b - y) ** 2).mean(), with nothing scaled or added.",
            f"{what} 的第一个损失应该是 w = 0、b = 0 时的损失，即 mean(y**2) = {want[0]:.6g}；"
            f"你的是 {first}。你的 w 和 b 确实从零开始（steps=0 时返回的是零），所以是损失的计算方式"
            "不同：它应当是平方误差的均值 ((X @ w + b - y) ** 2).mean()，不做任何缩放、不加任何项。",
            evidence=["values_differ", "loss_not_mse"],
        )


def _losses_or_none(result):
    """The losses fit_linear returned (its third value), as numbers; None where they cannot be
    read (the tests that own the returned value say why)."""
    if not isinstance(result, (tuple, list)) or len(result) != 3:
        return None
    try:
        return as_floats(result[2], "fit_linear(...)")
    except CheckFailed:
        return None


def _plain(got, d, steps, what):
    """w of shape (d,) and b of shape (), neither requiring grad, and a list of ``steps``
    Python floats."""
    w, b = _parameters(got, d, what, strict=True)
    for name, value in (("w", w), ("b", b)):
        if value.requires_grad:
            fail(
                f"{what} → {name} still requires grad: the caller gets a parameter "
                "that keeps recording every operation done with it. Return the learned values "
                f"with {name}.detach().",
                f"{what} 返回的 {name} 仍然需要梯度：调用者拿到的参数会继续记录用它做的每个运算。"
                f"请用 {name}.detach() 返回学到的值。",
                evidence=["requires_grad_output", "returned_requires_grad"],
            )
    losses = _unpack(got, what)[2]
    if not isinstance(losses, list) or len(losses) != steps:
        fail(
            f"{what} should return a list of {steps} losses, one per step, but yours returned "
            f"{describe(losses)}.",
            f"{what} 应该返回包含 {steps} 个损失的列表（每一步一个），但你的结果是 {describe_zh(losses)}。",
            evidence=["wrong_length"],
        )
    as_floats(losses, what, tensors="reject", ints=False)


@_numbers_named
def test_returns_plain_values(learner, device, rng):
    n, d, lr = 16, 2, 0.1
    X, y = (t.to(device) for t in _data(rng, n, d))
    _plain(learner.fit_linear(X, y, lr, 0), d, 0, _what(n, d, lr, 0))
    # After some steps too, unless the update loop crashes (the training tests report that).
    run = learner.run(fit_safely, X, y, lr, 5)
    if "value" in run:
        _plain(run["value"], d, 5, _what(n, d, lr, 5))


def _own_parameters(got, what):
    w, b, _ = _unpack(got, what)
    return [(name, expect_tensor(v, f"{what} → {name}")) for name, v in (("w", w), ("b", b))]


def _check_dtype(got, X, what):
    """The learner's own w and b have X's dtype (their values are judged elsewhere)."""
    for name, value in _own_parameters(got, what):
        label = f"{what} → {name}"
        if value.dtype != X.dtype and value.dtype.is_floating_point:
            dt, want = str(value.dtype)[6:], str(X.dtype)[6:]
            fail(
                f"{label} should have X's dtype {want}, but yours is {dt}: create the parameters "
                f"with the data's dtype, torch.zeros(..., dtype=X.dtype, device=X.device). "
                f"{dt} parameters on {want} data mix two floating dtypes, which X @ w refuses.",
                f"{label} 应与 X 的 dtype（{want}）相同，但你的结果是 {dt}：请用数据的 dtype 创建参数，"
                f"torch.zeros(..., dtype=X.dtype, device=X.device)。{dt} 的参数配上 {want} 的数据，"
                "就把两种浮点 dtype 混在了一起，X @ w 会拒绝计算。",
                evidence=["wrong_dtype", "float_dtypes_mixed"],
            )
        assert_dtype(value, X.dtype, label)


def _check_device(got, X, what):
    """The learner's own w and b are on X's device."""
    for name, value in _own_parameters(got, what):
        assert_device(value, X.device, f"{what} → {name}")


@_numbers_named
def test_keeps_dtype(learner, device, rng, learner_source):
    n, d, lr, steps = 24, 3, 0.1, 20
    X, y = (t.to(device) for t in _data(rng, n, d, dtype=torch.float64))
    what = _what(n, d, lr, steps, ", float64")
    if device != "meta":
        run = learner.run(fit_safely, X, y, lr, steps)
        if "value" in run:
            _check_dtype(run["value"], X, what)
            return
        if "value" in learner.run(fit_safely, X.float(), y.float(), lr, steps):
            # It trains on float32 data but not on float64: call it again, so that its own
            # error (and the diagnosis of that error) is what the learner reads.
            with _explain_raise(learner_source):
                learner.fit_linear(X, y, lr, steps)
            fail(
                f"{what} raised {run['error'][:300]}",
                f"{what} 抛出了 {run['error'][:300]}",
                evidence=["float_dtypes_mixed"],
            )
    # On meta (shapes without data), or when the training crashes whatever the dtype (the
    # training tests report that): the w and b of no steps at all.
    _check_dtype(learner.fit_linear(X, y, lr, 0), X, _what(n, d, lr, 0, ", float64"))


@_numbers_named
def test_on_device(learner, device, rng):
    n, d, lr, steps = 24, 3, 0.1, 20
    X, y = (t.to(device) for t in _data(rng, n, d))
    if device != "meta":
        run = learner.run(fit_safely, X, y, lr, steps)
        if "value" in run:
            _check_device(run["value"], X, _what(n, d, lr, steps, f", device = {device}"))
            return
    # On meta (shapes without data: a tensor made on the CPU shows there as on a GPU), or when
    # the training crashes: the w and b of no steps at all.
    _check_device(learner.fit_linear(X, y, lr, 0), X, _what(n, d, lr, 0, f", device = {device}"))


@_numbers_named
def test_non_contiguous(learner, device, rng):
    # The learner on views against the same learner on contiguous copies of the same values.
    n, d, lr, steps = 20, 3, 0.1, 20
    X, y = (t.to(device) for t in _data(rng, n, d))
    what = _what(n, d, lr, steps, ", X = X.t().contiguous().t(), y = stack([y, 0], 1)[:, 0]")
    runs = learner.run(contiguous_and_views, X, y, lr, steps)
    plain, views = runs["contiguous"], runs["views"]
    if "error" in views:
        if "error" in plain and plain["type"] == views["type"]:
            return  # it fails the same way on contiguous inputs: the training tests report that
        learner.fit_linear(runs["X_view"], runs["y_view"], lr, steps)  # its own error, diagnosed
        fail(
            f"{what} raised {views['error'][:300]}, but not on contiguous copies of X and y.",
            f"{what} 抛出了 {views['error'][:300]}，但在 X 和 y 的连续副本上没有。",
            evidence=["fails_on_views"],
        )
    if "error" in plain:
        return
    got, want = views["value"], plain["value"]
    w, b = _parameters(got, d, what)
    want_w, want_b = _parameters(want, d, "fit_linear(X.contiguous(), y.contiguous(), ...)")
    label = Text(
        f"{what}, against your own result on contiguous copies of X and y",
        f"{what}，与你自己在 X 和 y 的连续副本上的结果相比",
    )
    for name, g, wv in (("w", w, want_w), ("b", b, want_b)):
        assert_close(
            g,
            wv,
            Text(f"{label.en} → {name}", f"{label.zh} → {name}"),
            rtol=1e-5,
            atol=1e-6,
            check_dtype=False,
            check_device=False,
        )


def test_no_optimizer_no_linear(learner, exercise, learner_source, rng):
    X, y = _data(rng, 10, 2)
    # Traced in a scenario that brings an exception back as data: code that crashes in its
    # update loop is judged by the training tests; the calls made up to the crash count here.
    learner.run(fit_safely, X, y, 0.1, 3, trace=True)
    assert_not_forbidden(exercise, "fit_linear", learner_source, learner.last)


def test_leaves_inputs_alone(learner, device, rng):
    n, d, lr, steps = 12, 3, 0.1, 5
    X, y = (t.to(device) for t in _data(rng, n, d))
    run = learner.run(fit_safely, X, y, lr, steps)
    what = _what(n, d, lr, steps)
    for name, before in (("X", X), ("y", y)):
        assert_unchanged(before, run[name], Text(f"{name} after {what}", f"{what} 之后的 {name}"))
