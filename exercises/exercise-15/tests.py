"""Hidden tests of exercise-15: inference without the graph.

Pitfalls from the seeds: without torch.no_grad() PyTorch records the graph of a mere prediction
(003 §3.4, 000 §7.3); no_grad() is for a block of code and detach() for one tensor, "do not mix
them up" (003 §3.4), so a forward pass that records a graph and detaches its output afterwards
still pays for the graph; model.eval() is not no_grad() (it switches Dropout and BatchNorm, 003
§4.4), and a helper that calls it must not leave the caller's model switched; detach() shares
memory with the original while clone() alone stays in the graph (003 §3.4, 001 §8.2, §8.4).

A model cannot cross into the learner's process, so predict runs in a scenario that builds a
seeded model (with stale gradients and a frozen layer, as a model in the middle of training has)
and reports what predict did to it. A forward hook records whether gradients were being recorded
while the model ran.

Each test judges one requirement (see `requirements` in exercise.yaml): the values tests compare
values (and shapes), the dtype tests the dtype and the device tests the device only; only
test_snapshot_leaves_t_alone judges what snapshot did to t (input_check is off elsewhere).
"""

import ast
from contextlib import contextmanager

import torch
from torch import nn

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import (
    LearnerRaised,
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_requires_grad,
    assert_shape,
    expect_tensor,
    fail,
    on_meta,
    shares,
    tensor_info,
)

# -- scenarios: run next to the learner's code ------------------------------------------------


def predict_run(module, kind, training, X, seed):
    """predict(model, X) on a seeded model in the given mode; what predict did to it."""
    torch.set_grad_enabled(True)  # whatever an earlier call left switched (judged after the call)
    torch.manual_seed(seed)
    d = X.shape[1]
    if kind == "linear":
        model = nn.Linear(d, 3)
    else:
        model = nn.Sequential(
            nn.Linear(d, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Dropout(0.5), nn.Linear(8, 2)
        )
    model = model.to(device=X.device, dtype=X.dtype)
    with torch.no_grad():
        if kind == "mlp":  # running statistics unlike the batch's own: eval mode matters
            model[1].running_mean.copy_(torch.randn(8).to(X.device, X.dtype))
            model[1].running_var.copy_((torch.rand(8) + 0.5).to(X.device, X.dtype))
        for p in model.parameters():  # stale gradients, as in the middle of training
            p.grad = torch.randn(p.shape).to(X.device, X.dtype)
    next(model.parameters()).requires_grad_(False)  # a frozen layer
    model.train(training)
    seen = []
    for m in model.modules():
        m.register_forward_hook(
            lambda m, i, o: seen.append(isinstance(o, torch.Tensor) and o.grad_fn is not None)
        )

    def state():
        return [
            {
                "name": name,
                "value": p.detach().clone(),
                "requires_grad": p.requires_grad,
                "grad": None if p.grad is None else p.grad.detach().clone(),
            }
            for name, p in model.named_parameters()
        ]

    modes = [(name or "model", m.training) for name, m in model.named_modules()]
    before = state()
    out = module.predict(model, X)
    return {
        "out": out,
        "forward_recorded": seen,
        "grad_enabled_after": torch.is_grad_enabled(),
        "modes_before": modes,
        "modes_after": [(name or "model", m.training) for name, m in model.named_modules()],
        "before": before,
        "after": state(),
        "X": X,
    }


def snapshot_run(module, w):
    """snapshot(y) for y computed from a leaf (an intermediate result, not a leaf itself)."""
    w = w.detach().requires_grad_(True)
    with torch.enable_grad():  # whatever an earlier call left switched
        y = torch.sin(w * 2)
    snap = module.snapshot(y)
    same_memory = (
        isinstance(snap, torch.Tensor)
        and snap.device.type != "meta"
        and snap.untyped_storage().data_ptr() == y.untyped_storage().data_ptr()
    )
    return {
        "snap": snap,
        "shares_memory": same_memory,
        "y_still_in_graph": y.requires_grad and y.grad_fn is not None,
        "w": w,
    }


def numpy_route_run(module, t):
    """snapshot(t), noting whether it called Tensor.numpy() (a round trip through NumPy):
    True, False, or None where snapshot raised. The array .numpy() gives is a view of t's
    memory, and torch.from_numpy / torch.as_tensor wrap an array without copying it."""
    called = [False]
    original = torch.Tensor.numpy

    def watched(self, *args, **kwargs):
        called[0] = True
        return original(self, *args, **kwargs)

    torch.Tensor.numpy = watched
    try:
        module.snapshot(t.detach().requires_grad_(t.requires_grad))
    except Exception:  # noqa: BLE001 - the snapshot tests judge the call itself
        return None
    finally:
        torch.Tensor.numpy = original
    return called[0]


def _shares_story(learner, t, what_en, what_zh, name="t"):
    """fail() for a snapshot that shares memory with ``name``: through NumPy where the
    learner's snapshot called .numpy() (:func:`numpy_route_run`), else through detach()."""
    try:
        through_numpy = learner.run(numpy_route_run, t) is True
    except LearnerFault:
        through_numpy = False
    if through_numpy:
        fail(
            f"{what_en} shares memory with {name}: writing into one would change the other. Your "
            f"snapshot goes through NumPy, which does not copy: {name}.numpy() is a view of "
            f"{name}'s memory, and torch.from_numpy (or torch.as_tensor) wraps that same array, "
            "so the round trip gives back the original memory. No NumPy is needed (and it would "
            "not work on the GPU): t.detach().clone() copies, on t's device.",
            f"{what_zh} 与 {name} 共享内存：修改其中一个会改变另一个。你的 snapshot 经过了 NumPy，"
            f"而这一过程并不复制数据：{name}.numpy() 是 {name} 内存的视图，torch.from_numpy"
            "（或 torch.as_tensor）包装的又是同一个数组，所以绕了一圈拿回的还是原来的内存。这里不需要 "
            "NumPy（它在 GPU 上也行不通）：t.detach().clone() 会复制数据，并且留在 t 所在的设备上。",
            evidence=["shares_memory", "numpy_shares_memory"],
        )
    fail(
        f"{what_en} shares memory with {name}: writing into one would change the other. "
        f"detach() (and .data) return a tensor that shares {name}'s memory; copy it with "
        ".clone(): t.detach().clone().",
        f"{what_zh} 与 {name} 共享内存：修改其中一个会改变另一个。detach()（以及 .data）返回的张量"
        f"与 {name} 共享内存；请用 .clone() 复制：t.detach().clone()。",
        evidence=["shares_memory", "detach_shares_memory"],
    )


# -- helpers ----------------------------------------------------------------------------------

KINDS = {"linear": "nn.Linear(d, 3)", "mlp": "Linear-BatchNorm1d-ReLU-Dropout-Linear"}


def _what(kind, training, note=""):
    mode = "model.train()" if training else "model.eval()"
    return f"predict(model, X) [{KINDS[kind]}, {mode}{note}]"


def _randn(rng, *shape, dtype=torch.float32):
    return torch.randn(shape, generator=rng, dtype=dtype)


def _run_both(learner, reference, kind, training, X, seed, reference_X=None):
    got = learner.run(predict_run, kind, training, X, seed)
    want = predict_run(reference, kind, training, X if reference_X is None else reference_X, seed)
    return got, want


def _check_out_of_graph(run, what):
    out = expect_tensor(run["out"], what)
    info = tensor_info(out)
    if info is not None and info.requires_grad:
        fail(
            f"{what} requires grad (grad_fn={info.grad_fn}): the forward pass recorded an "
            "autograd graph, which costs memory and time and keeps the output attached to the "
            "model. Run the model inside `with torch.no_grad():` (or torch.inference_mode()).",
            f"{what} 需要梯度（grad_fn={info.grad_fn}）：前向计算记录了计算图，既占内存又耗时，"
            "输出也仍然连着模型。请在 `with torch.no_grad():`（或 torch.inference_mode()）中运行模型。",
            evidence=["requires_grad_output"],
        )
    assert_requires_grad(out, False, what)
    if any(run["forward_recorded"]):
        fail(
            f"{what}: the model ran while autograd was recording (outside torch.no_grad()), so "
            "the whole graph of the forward pass was built; detaching the output afterwards "
            "does not undo that. Run the model itself inside `with torch.no_grad():`.",
            f"{what}：模型运行时自动求导正在记录（在 torch.no_grad() 之外），所以整个前向计算图都"
            "已经建好了；事后对输出 detach() 并不能撤销。请把模型的调用本身放进 "
            "`with torch.no_grad():` 中。",
            evidence=["requires_grad_output", "forward_recorded_graph"],
        )
    if not run["grad_enabled_after"]:
        fail(
            f"After {what}, gradient recording was still switched off for all later code: "
            "torch.set_grad_enabled(False) changes a global switch. Use `with torch.no_grad():`, "
            "which switches it back on at the end of the block.",
            f"{what} 之后，后续所有代码的梯度记录仍然是关闭的：torch.set_grad_enabled(False) "
            "改变的是全局开关。请使用 `with torch.no_grad():`，它会在代码块结束时重新打开。",
            evidence=["grad_mode_left_off"],
        )


# -- predict ----------------------------------------------------------------------------------


def test_predict_values(learner, reference, device, rng, seed):
    cases = [
        ("linear", False, _randn(rng, 6, 4), ""),
        ("mlp", False, _randn(rng, 10, 5), ""),
        ("mlp", False, _randn(rng, 5, 10).t(), ", X = randn(5, 10).t()"),
        ("mlp", False, _randn(rng, 1, 5), ""),
        ("linear", True, _randn(rng, 8, 4)[::2], ", X = randn(8, 4)[::2]"),
    ]
    for i, (kind, training, X, note) in enumerate(cases):
        got, want = _run_both(learner, reference, kind, training, X.to(device), seed + i)
        assert_close(
            got["out"],
            want["out"],
            _what(kind, training, f", X: {tuple(X.shape)}{note}"),
            rtol=1e-5,
            atol=1e-6,
            check_dtype=False,
            check_device=False,
        )


def test_predict_records_no_graph(learner, device, rng, seed):
    for i, (kind, training) in enumerate((("mlp", False), ("linear", True))):
        X = _randn(rng, 6, 4).to(device)
        _check_out_of_graph(
            learner.run(predict_run, kind, training, X, seed + i), _what(kind, training)
        )


def test_predict_keeps_mode(learner, device, rng, seed):
    for i, training in enumerate((True, False)):
        X = _randn(rng, 6, 4).to(device)
        run = learner.run(predict_run, "mlp", training, X, seed + i)
        changed = [
            (name, was, now)
            for (name, was), (_, now) in zip(run["modes_before"], run["modes_after"])
            if was != now
        ]
        if changed:
            name, was, now = changed[0]
            mode = {True: "training", False: "eval"}
            mode_zh = {True: "训练", False: "评估（eval）"}
            fail(
                f"{_what('mlp', training)} left the model in {mode[now]} mode; it arrived in "
                f"{mode[was]} mode ({name}.training went from {was} to {now}). The mode belongs "
                "to the caller: predict must not change it (if you switch it, put it back with "
                "model.train(was_training)). To stop recording gradients, torch.no_grad() is "
                "enough; eval() is about Dropout and BatchNorm, not gradients.",
                f"{_what('mlp', training)} 让模型处于{mode_zh[now]}模式，而它传入时处于"
                f"{mode_zh[was]}模式（{name}.training 从 {was} 变成了 {now}）。模式由调用者决定："
                "predict 不能改变它（如果切换了，请用 model.train(was_training) 恢复）。想停止记录"
                "梯度，torch.no_grad() 就够了；eval() 影响的是 Dropout 和 BatchNorm，而不是梯度。",
                evidence=["mode_changed"],
            )


def test_predict_leaves_model_alone(learner, device, rng, seed):
    for i, training in enumerate((False, True)):
        X = _randn(rng, 6, 4).to(device)
        run = learner.run(predict_run, "mlp", training, X, seed + i)
        what = _what("mlp", training)
        for b, a in zip(run["before"], run["after"]):
            name = b["name"]
            if a["requires_grad"] != b["requires_grad"]:
                fail(
                    f"{what} changed the parameter {name}: its requires_grad went from "
                    f"{b['requires_grad']} to {a['requires_grad']}. Switching requires_grad off "
                    "(or back on) changes which parameters the caller trains; torch.no_grad() "
                    "stops the recording without touching the parameters.",
                    f"{what} 修改了参数 {name}：它的 requires_grad 从 {b['requires_grad']} 变成了 "
                    f"{a['requires_grad']}。关闭（或重新打开）requires_grad 会改变调用者训练哪些参数；"
                    "torch.no_grad() 能停止记录，而不会改动参数。",
                    evidence=["param_requires_grad_changed"],
                )
            if (a["grad"] is None) != (b["grad"] is None) or (
                a["grad"] is not None and not torch.equal(a["grad"].cpu(), b["grad"].cpu())
            ):
                fail(
                    f"{what} changed the .grad of the parameter {name} (it was "
                    f"{'None' if b['grad'] is None else 'a gradient'}, it is now "
                    f"{'None' if a['grad'] is None else 'a different one'}). A prediction must "
                    "not clear, fill or add to the caller's gradients: no zero_grad(), no "
                    "backward().",
                    f"{what} 修改了参数 {name} 的 .grad（原来是 "
                    f"{'None' if b['grad'] is None else '一个梯度'}，现在是 "
                    f"{'None' if a['grad'] is None else '另一个值'}）。预测不能清空、写入或累加"
                    "调用者的梯度：不要调用 zero_grad()，也不要调用 backward()。",
                    evidence=["param_grad_changed"],
                )
            if not torch.equal(a["value"].cpu(), b["value"].cpu()):
                fail(
                    f"{what} changed the values of the parameter {name}.",
                    f"{what} 修改了参数 {name} 的值。",
                    evidence=["param_values_changed"],
                )
        if not torch.equal(run["X"].cpu(), X.cpu()):
            fail(
                f"{what} changed the values of X.",
                f"{what} 修改了 X 的值。",
                evidence=["input_mutated", "input_values_changed"],
            )


def test_predict_keeps_dtype(learner, device, rng, seed):
    # A float64 model and batch: the output is float64 (its values are judged elsewhere).
    X = _randn(rng, 7, 4, dtype=torch.float64).to(device)
    got = learner.run(predict_run, "mlp", False, X, seed)
    what = _what("mlp", False, ", float64")
    assert_dtype(expect_tensor(got["out"], what), torch.float64, what)


def predict_on_device_run(module, X, seed):
    """predict(model, X) for an nn.Linear on X's device; on meta, a copy of meta data to another
    device comes back as data (it raises NotImplementedError, which would read as "not
    implemented yet")."""
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 3).to(X.device)
    try:
        return {"value": module.predict(model, X)}
    except NotImplementedError as exc:
        if "meta" not in str(exc):
            raise
        return {"copied_out_of_meta": str(exc)}


def test_predict_on_device(learner, device, rng, seed):
    # On meta (shapes without data), a tensor moved to the CPU shows as on a GPU.
    X = _randn(rng, 7, 4).to(device)
    what = f"predict(model, X) [nn.Linear(4, 3), X: (7, 4), device = {device}]"
    run = learner.run(predict_on_device_run, X, seed)
    if "copied_out_of_meta" in run:
        fail(
            f"{what} tried to copy the data of its meta outputs to another device (PyTorch said: "
            f"{run['copied_out_of_meta']}): the output was moved with .cpu() (or copied into a "
            "tensor made on the CPU). Return the model's outputs where they are.",
            f"{what} 试图把 meta 输出的数据复制到另一个设备上（PyTorch 报错："
            f"{run['copied_out_of_meta']}）：输出被 .cpu() 移走了（或被复制到 CPU 上新建的张量中）。"
            "请直接返回模型输出所在设备上的结果。",
            evidence=["wrong_device"],
        )
    assert_device(expect_tensor(run["value"], what), device, what)


# -- snapshot ---------------------------------------------------------------------------------


@contextmanager
def _flag_on_a_copy():
    """snapshot raising "you can only change requires_grad flags of leaf variables": it switched
    requires_grad off on a tensor in the graph (t.clone(), or a computed t itself), where
    detach() is the way out. Names that, in place of the catalogue's advice about models."""
    try:
        yield
    except LearnerRaised as exc:
        if "requires_grad flags of leaf variables" in exc.text:
            exc.message = Text(
                f"{exc.message.en} requires_grad can only be switched off on a leaf tensor; a "
                "tensor made by a recorded operation, t.clone() included (its grad_fn is "
                "CloneBackward), is not one. detach() is how a tensor leaves the graph, and "
                "clone() gives it memory of its own: t.detach().clone().",
                f"{exc.message.zh} 只有叶子张量才能关掉 requires_grad；由被记录的运算得到的张量（包括 "
                "t.clone()，它的 grad_fn 是 CloneBackward）不是叶子张量。detach() 才能让张量脱离"
                "计算图，clone() 则给它单独的内存：t.detach().clone()。",
            )
            exc.evidence = (*exc.evidence, "requires_grad_non_leaf", "clone_keeps_graph")
        elif "support the deepcopy protocol" in exc.text:
            exc.message = Text(
                f"{exc.message.en} copy.deepcopy copies a tensor with everything it carries, "
                "requires_grad included, and refuses one computed in the graph. detach() is how "
                "a tensor leaves the graph, and clone() gives it memory of its own: "
                "t.detach().clone().",
                f"{exc.message.zh} copy.deepcopy 会把张量连同它携带的一切（包括 requires_grad）"
                "一起复制，并且拒绝复制在计算图中算出的张量。detach() 才能让张量脱离计算图，"
                "clone() 则给它单独的内存：t.detach().clone()。",
            )
            exc.evidence = (*exc.evidence, "copy_requires_grad")
        raise


def _snapshot_inputs(rng):
    """(description, t): the kinds of tensors one keeps a copy of."""
    return [
        ("randn(3, 4).requires_grad_()", _randn(rng, 3, 4).requires_grad_()),
        ("randn(5) float64", _randn(rng, 5, dtype=torch.float64)),
        ("arange(6) int64", torch.arange(6)),
        ("tensor(2.5).requires_grad_()", torch.tensor(2.5).requires_grad_()),
        ("randn(0, 3)", _randn(rng, 0, 3)),
        ("randn(4, 3).t()", _randn(rng, 4, 3).t()),
        ("randn(4, 6)[:, ::2]", _randn(rng, 4, 6)[:, ::2]),
    ]


def test_snapshot_values(learner, reference, device, rng):
    # Values, shape and dtype (the device is judged by test_snapshot_on_device).
    with _flag_on_a_copy():
        for text, t in _snapshot_inputs(rng):
            x = t.detach().to(device).requires_grad_(t.requires_grad)
            want = reference.snapshot(x)
            got = expect_tensor(learner.snapshot(x), f"snapshot(t) [t = {text}]")
            assert_shape(got, want.shape, f"snapshot(t) [t = {text}]")
            assert_dtype(got, want.dtype, f"snapshot(t) [t = {text}]")
            assert_equal(got.detach().cpu(), want.detach().cpu(), f"snapshot(t) [t = {text}]")


def test_snapshot_on_device(learner, device, rng):
    with _flag_on_a_copy():
        for text, t in _snapshot_inputs(rng):
            x = t.detach().to(device).requires_grad_(t.requires_grad)
            what = f"snapshot(t) [t = {text}, device = {device}]"
            got = (
                on_meta(learner, "snapshot", [x], what) if device == "meta" else learner.snapshot(x)
            )
            assert_device(expect_tensor(got, what), device, what)


def _flag_set_again(source):
    """The line of snapshot's body that turns requires_grad back on (``.requires_grad_(...)``,
    a ``requires_grad=`` keyword other than False, ``x.requires_grad = ...``), or None; a
    source that does not parse has none."""
    try:
        tree = ast.parse(source or "")
    except (SyntaxError, ValueError):
        return None
    for node in ast.walk(tree):
        if not (isinstance(node, ast.FunctionDef) and node.name == "snapshot"):
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.Call):
                func = inner.func
                if isinstance(func, ast.Attribute) and func.attr == "requires_grad_":
                    args = [*inner.args, *(k.value for k in inner.keywords)]
                    if not any(isinstance(a, ast.Constant) and a.value is False for a in args):
                        return inner.lineno
                for keyword in inner.keywords:
                    value = keyword.value
                    if keyword.arg == "requires_grad" and not (
                        isinstance(value, ast.Constant) and value.value is False
                    ):
                        return inner.lineno
            if isinstance(inner, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr == "requires_grad" for t in inner.targets
            ):
                if not (isinstance(inner.value, ast.Constant) and inner.value.value is False):
                    return inner.lineno
    return None


def test_snapshot_out_of_graph(learner, device, rng, learner_source):
    with _flag_on_a_copy():
        for text, t in [case for case in _snapshot_inputs(rng) if case[1].requires_grad]:
            x = t.detach().to(device).requires_grad_()
            what = f"snapshot(t) [t = {text}]"
            got = expect_tensor(learner.snapshot(x), what)
            info = tensor_info(got)
            if info is not None and info.requires_grad and info.grad_fn:
                grad_fn = info.grad_fn
                fail(
                    f"{what} still requires grad (grad_fn={grad_fn}): clone() copies the data but "
                    "stays in the graph, so gradients would flow back into t. Detach it as well: "
                    "t.detach().clone().",
                    f"{what} 仍然需要梯度（grad_fn={grad_fn}）：clone() 复制了数据，但仍留在计算图中，"
                    "梯度会流回 t。还需要 detach()：t.detach().clone()。",
                    evidence=["requires_grad_output", "clone_keeps_graph"],
                )
            if info is not None and info.requires_grad and info.is_leaf and not shares(got):
                line = _flag_set_again(learner_source)
                if line is not None:
                    fail(
                        f"{what} is a new leaf that requires grad: line {line} of your snapshot "
                        "turns requires_grad back on for the copy. A snapshot is kept out of the "
                        "graph: return t.detach().clone() as it is, with no requires_grad_() and "
                        "no requires_grad=... after it.",
                        f"{what} 是一个需要梯度的新叶子张量：你的 snapshot 第 {line} 行又把副本的 "
                        "requires_grad 打开了。快照要留在计算图之外：直接返回 t.detach().clone()，"
                        "之后不要再 requires_grad_()，也不要 requires_grad=...。",
                        evidence=["requires_grad_output", "copy_flag_set_again"],
                    )
                fail(
                    f"{what} is a new leaf that still requires grad: the data was copied together "
                    "with requires_grad=True, as copy.deepcopy(t) does. Nothing was recorded, so "
                    "torch.no_grad() would not help: detach from the graph, then copy, "
                    "t.detach().clone().",
                    f"{what} 是一个仍然需要梯度的新叶子张量：数据连同 requires_grad=True 一起被复制了，"
                    "copy.deepcopy(t) 就是这样。这里并没有记录任何运算，所以 torch.no_grad() 帮不上忙："
                    "先脱离计算图，再复制：t.detach().clone()。",
                    evidence=["requires_grad_output", "copy_requires_grad"],
                )
            assert_requires_grad(got, False, what)
        # An intermediate result (not a leaf): its snapshot leaves the graph, and the graph itself
        # keeps working for the caller.
        run = learner.run(snapshot_run, _randn(rng, 5).to(device))
        what = "snapshot(y) [y = sin(w * 2), w.requires_grad = True]"
        got = expect_tensor(run["snap"], what)
        if got.requires_grad:
            fail(
                f"{what} still requires grad: clone() copies the data but stays in the graph. Detach "
                "it as well: t.detach().clone().",
                f"{what} 仍然需要梯度：clone() 复制了数据，但仍留在计算图中。还需要 detach()："
                "t.detach().clone()。",
                evidence=["requires_grad_output", "clone_keeps_graph"],
            )


def test_snapshot_shares_no_memory(learner, device, rng):
    with _flag_on_a_copy():
        for text, t in _snapshot_inputs(rng):
            if t.numel() == 0:
                continue  # an empty tensor has no memory to share
            x = t.detach().to(device).requires_grad_(t.requires_grad)
            what = f"snapshot(t) [t = {text}]"
            got = expect_tensor(learner.snapshot(x), what)
            if shares(got):
                _shares_story(learner, x, what, what)
        w = _randn(rng, 5).to(device)
        run = learner.run(snapshot_run, w)
        if run["shares_memory"]:
            what = "snapshot(y) [y = sin(w * 2), w.requires_grad = True]"
            _shares_story(learner, torch.sin(w * 2), what, what, name="y")


def test_snapshot_leaves_t_alone(learner, device, rng):
    # The only snapshot test that judges t (input_check is off in the others): the calls on
    # leaves fail if they change t's values, requires_grad or .grad.
    with _flag_on_a_copy():
        for text, t in [case for case in _snapshot_inputs(rng) if case[1].requires_grad]:
            learner.snapshot(t.detach().to(device).requires_grad_())
        run = learner.run(snapshot_run, _randn(rng, 5).to(device))
        what = "snapshot(y) [y = sin(w * 2), w.requires_grad = True]"
        if not run["y_still_in_graph"]:
            fail(
                f"After {what}, y itself was cut out of the graph (detach_() or requires_grad_(False) "
                "on it): the caller can no longer call backward() through y. detach() (without the "
                "underscore) returns a new tensor and leaves y alone.",
                f"{what} 之后，y 本身被切出了计算图（对它调用了 detach_() 或 requires_grad_(False)）："
                "调用者再也无法通过 y 调用 backward()。detach()（不带下划线）返回新张量，不会改动 y。",
                evidence=["input_mutated", "input_requires_grad_changed"],
            )
