"""Hidden tests of exercise-14: zero_grad placement.

The training runs next to the learner's code (``learner.run``), on data and initial weights that
depend only on the seed, so the learner's loss curve and final parameters can be compared with
the reference's. When they differ, the same run with the two classic mistakes (gradients never
zeroed, gradients zeroed between backward and step) is replayed here to name the mistake, and
so is the same loop, zeroed correctly, with another optimizer (Adam, created once or every epoch,
and SGD with momentum), whose curves drift apart only after the first epoch. Any other optimizer,
or SGD with other settings or another lr, is named from the optimizer the learner's run stepped
(``optimizer_used``: one more run, only for a curve or parameters that differ).

Each test judges one requirement of the instructions (see `requirements` in exercise.yaml):
the type of the returned losses is judged by test_returns_one_float_per_epoch alone (elsewhere
a one-element tensor counts as its value), the MLP test judges the trained parameters (the loss
curve has its own test), and the defaults are judged by comparing the learner's train(model, X,
y) with the same learner's train(model, X, y, lr=0.1, epochs=50), so a bug in the training loop
does not also cost the defaults.
"""

import warnings

import torch
from torch import nn

from grader.spec import Text
from grader.testing import (
    CheckFailed,
    as_floats,
    assert_close,
    compare_losses,
    expect_tensor,
    fail,
    loss_head,
    once,
    optimizer_used,
)
from grader.testing.checks import assert_unchanged
from grader.testing.training import (
    diverged,
    diverged_story,
    graph_reuse_named,
    recorded_loss_story,
    scaled_loss_story,
    stale_loss_story,
    stops_after_first_story,
)


def linear_run(module, device, seed, n, d, lr, epochs):
    """Train a fresh nn.Linear(d, 1) with module.train on seeded data; ``lr=None`` calls
    train(model, X, y) without lr and epochs."""
    torch.manual_seed(seed)
    X = torch.randn(n, d)
    y = X @ torch.randn(d, 1) + 0.5 + 0.1 * torch.randn(n, 1)
    model = nn.Linear(d, 1)
    model, X, y = model.to(device), X.to(device), y.to(device)
    start = [p.detach().clone() for p in model.parameters()]
    with torch.no_grad():
        start_loss = nn.functional.mse_loss(model(X), y).item()
    data = {"X": X.clone(), "y": y.clone()}  # as they were before the call
    if lr is None:
        losses = module.train(model, X, y)
    else:
        losses = module.train(model, X, y, lr=lr, epochs=epochs)
    return {
        "losses": losses,
        "params": [p.detach().clone() for p in model.parameters()],
        "start": start,
        "n": n,
        "start_loss": start_loss,
        "data_before": data,
        "data_after": {"X": X, "y": y},
    }


def mlp_run(module, device, seed, epochs):
    """Train a small two-layer network with module.train on seeded data."""
    torch.manual_seed(seed)
    X = torch.randn(24, 3)
    y = torch.sin(X.sum(dim=1, keepdim=True))
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    model, X, y = model.to(device), X.to(device), y.to(device)
    start = [p.detach().clone() for p in model.parameters()]
    losses = module.train(model, X, y, lr=0.05, epochs=epochs)
    return {
        "losses": losses,
        "params": [p.detach().clone() for p in model.parameters()],
        "start": start,
        "n": X.shape[0],
    }


class _Mistake:
    """A training loop with one classic mistake, to recognise it in a learner's results."""

    def __init__(self, kind):
        self.kind = kind

    def train(self, model, X, y, lr=0.1, epochs=50):
        optimizer = self._optimizer(model, lr)
        losses = []
        for _ in range(epochs):
            if self.kind == "adam_each_epoch":  # a new optimizer, without Adam's state, per epoch
                optimizer = self._optimizer(model, lr)
            if self.kind in ZEROED:  # zeroed as it should be: only the update or loss differs
                optimizer.zero_grad()
            target = y.squeeze() if self.kind == "broadcast" else y
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # the broadcast warning
                loss = nn.functional.mse_loss(model(X), target)
            losses.append(loss.item())
            loss.backward()
            if self.kind == "zero_before_step":
                optimizer.zero_grad()
            optimizer.step()
        return losses

    def _optimizer(self, model, lr):
        if self.kind in ("adam", "adam_each_epoch"):
            return torch.optim.Adam(model.parameters(), lr=lr)
        if self.kind == "momentum":
            return torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        return torch.optim.SGD(model.parameters(), lr=lr)


def _losses(run, what):
    """The returned losses as numbers; one-element tensors count as their value here (their
    type is judged by test_returns_one_float_per_epoch)."""
    return as_floats(run["losses"], what)


STORIES = {  # (evidence, English, Chinese): how a replayed mistake shows in the results
    "zero_before_step": (
        "parameters_never_move",
        "the parameters are never updated: when step() runs it finds no gradients. Either the order is off "
        "(optimizer.zero_grad() between backward() and step(), or step() before backward(); "
        "the order is zero_grad, forward, loss, backward, step), or the loss does not reach the parameters "
        "through the graph (the forward pass ran under torch.no_grad() or on detached values; "
        "setting requires_grad on the prediction or the loss afterwards does not reconnect them)",
        "参数从未被更新：step() 运行时找不到梯度。要么是顺序不对（optimizer.zero_grad() 放在了 backward() "
        "和 step() 之间，或者 step() 在 backward() 之前；正确的顺序是：zero_grad、前向、计算损失、backward、step），"
        "要么是损失没有经由计算图连到参数（前向计算是在 torch.no_grad() 下或在 detach 过的值上进行的；"
        "事后给预测或损失设置 requires_grad 并不能把它们重新连起来）",
    ),
    "never_zero": (
        "gradients_accumulate",
        "the results are those of gradients that are never zeroed and pile up step after step. "
        "Call optimizer.zero_grad() once per epoch, before backward()",
        "结果与梯度从不清零、逐步累加时完全一样。每个 epoch 在 backward() 之前调用一次 "
        "optimizer.zero_grad()",
    ),
    # another optimizer, zeroed correctly: the first loss agrees, then the updates differ
    "adam_each_epoch": (
        "optimizer_not_plain_sgd",
        "the results are those of torch.optim.Adam created anew in every epoch (with the "
        "gradients zeroed correctly): Adam is not the plain gradient descent asked for, and a "
        "new optimizer each epoch starts its running averages over every time. Create "
        "torch.optim.SGD(model.parameters(), lr=lr) once, before the loop",
        "结果与每个 epoch 都新建一个 torch.optim.Adam（梯度清零是正确的）时完全一样：Adam 不是题目要求的"
        "普通梯度下降，而且每个 epoch 新建优化器会让它的滑动平均每次都从头开始。请在循环之前创建一次 "
        "torch.optim.SGD(model.parameters(), lr=lr)",
    ),
    "adam": (
        "optimizer_not_plain_sgd",
        "the results are those of torch.optim.Adam (with the gradients zeroed correctly), which "
        "scales every step by running averages of the gradients; the exercise asks for plain "
        "gradient descent: torch.optim.SGD(model.parameters(), lr=lr)",
        "结果与使用 torch.optim.Adam（梯度清零是正确的）时完全一样，Adam 会用梯度的滑动平均来缩放每一步；"
        "题目要求的是普通梯度下降：torch.optim.SGD(model.parameters(), lr=lr)",
    ),
    "momentum": (
        "optimizer_not_plain_sgd",
        "the results are those of SGD with momentum=0.9 (with the gradients zeroed correctly): "
        "momentum carries part of each step into the next, so the curve agrees at first and "
        "then drifts. Use plain torch.optim.SGD(model.parameters(), lr=lr), without momentum",
        "结果与使用 momentum=0.9 的 SGD（梯度清零是正确的）时完全一样：动量会把每一步的一部分带到下一步，"
        "所以曲线开始一致、之后逐渐偏离。请使用不带动量的普通 torch.optim.SGD(model.parameters(), lr=lr)",
    ),
    # the two sides of the loss made to differ, zeroed correctly: y.squeeze() against model(X)
    # of (n, 1) is replayed, and every other pair that broadcasts to (n, n) (y.unsqueeze(1) of
    # (n, 1, 1), model(X).squeeze(1) against y, y.T) gives the very same numbers, so the story
    # names none of them as the one written
    "broadcast": (
        "broadcast_shape",
        "the results are those of a loss whose two sides have different shapes that broadcast "
        "to an (n, n) matrix: y already has the shape of model(X), (n, 1), so any reshape of "
        "one side makes them differ (y.squeeze() or y.view(-1) gives (n,), y.unsqueeze(1) gives "
        "(n, 1, 1), model(X).squeeze(1) gives (n,)). nn.MSELoss only warns, naming both sizes "
        "(a hand-written (pred - y) ** 2 does not), and the mean is taken over the wrong thing. Compare them as they are, "
        "with no squeeze, view or unsqueeze: loss_fn(model(X), y)",
        "结果与这样的损失完全一样：损失的两边形状不同，被广播成了 (n, n) 矩阵：y 本来就与 model(X) "
        "形状相同，都是 (n, 1)，所以对任何一边改变形状都会让两者不同（y.squeeze() 或 y.view(-1) 得到 "
        "(n,)，y.unsqueeze(1) 得到 (n, 1, 1)，model(X).squeeze(1) 得到 (n,)）。nn.MSELoss 只给出警告，"
        "警告里写着两边的大小（手写的 (pred - y) ** 2 连警告都没有），平均的根本不是你想要的东西。直接比较它们，不要 squeeze、view 或 "
        "unsqueeze：loss_fn(model(X), y)",
    ),
}
OTHER_OPTIMIZERS = ("adam_each_epoch", "adam", "momentum")
ZEROED = (*OTHER_OPTIMIZERS, "broadcast")


def _mistakes(replay, got_run):
    """compare_losses mistakes: each replayed classic mistake, with its story. A mistake is
    named from the curve only when the learner's trained parameters are the mistake's too (a
    loss curve that stays flat is not "never updated" when the parameters moved)."""

    def losses(kind):
        mistake = replay(_Mistake(kind))
        if not _same_params(got_run, mistake):
            return None
        return _losses(mistake, Text("the replayed mistake", "重演的错误"))

    return [
        (lambda kind=kind: losses(kind), en, zh, ["values_differ", evidence])
        for kind, (evidence, en, zh) in STORIES.items()
    ]


def _same_params(got_run, other_run):
    """The learner's trained parameters are ``other_run``'s (NaN equal to NaN)."""
    got, other = got_run["params"], other_run["params"]
    return (
        isinstance(got, list)
        and len(got) == len(other)
        and all(isinstance(g, torch.Tensor) and _close(g, o) for g, o in zip(got, other))
    )


def _moved(run):
    """The learner's model changed during the call."""
    return not _same_params(run, {"params": run["start"]})


def _readable_losses(run):
    """The run's losses as numbers, or None where they are not a list of numbers (judged by
    the tests that own the losses)."""
    try:
        return _losses(run, Text("your losses", "你的损失"))
    except CheckFailed:
        return None


def _first_loss_story(got, want, n):
    """A story for a first loss that is not the expected one, from the evidence only."""
    if got.numel() and want.numel():
        return scaled_loss_story(
            float(got[0]), float(want[0]), {n: ("the number of samples", "样本数")}
        )
    return None


def _run(learner, scenario, *args):
    """learner.run(scenario, *args), a graph reused across epochs named."""
    with graph_reuse_named():
        return learner.run(scenario, *args)


def _after_step(what, run, n, want_run):
    """An ``explain`` for compare_losses: losses measured after each step are the reference's
    shifted by one; a curve that differs although the trained parameters are the reference's
    (``want_run``) is recorded wrong, not trained wrong; a first loss n times the expected one
    is a summed loss; a curve that never changes while the parameters do is a stale
    prediction."""

    def explain(got, want):
        if got.numel() > 1 and torch.allclose(got[:-1], want[1:], rtol=1e-4, atol=1e-6):
            fail(
                f"{what}: each of your losses is the loss after its epoch's step (yours "
                f"{loss_head(got)}, expected {loss_head(want)}). Record loss.item() of the loss "
                "you call backward() on, before optimizer.step().",
                f"{what}：你的每个损失都是该 epoch 更新之后的损失（你的 {loss_head(got)}，期望 "
                f"{loss_head(want)}）。请在 optimizer.step() 之前记录你调用 backward() 的那个损失的 "
                "loss.item()。",
                evidence=["values_differ", "loss_after_step"],
            )
        for story in (
            recorded_loss_story(got, want, _same_params(run, want_run)),
            _first_loss_story(got, want, n),
            stale_loss_story(got, _moved(run)),
        ):
            if story is not None:
                evidence, en, zh = story
                fail(
                    f"{what}: {en}. First losses: yours {loss_head(got)}, expected "
                    f"{loss_head(want)}.",
                    f"{what}：{zh}。前几个损失：你的 {loss_head(got)}，期望 {loss_head(want)}。",
                    evidence=["values_differ", evidence],
                )

    return explain


def _close(a, b):
    """Equal within the tests' tolerance; NaN equals NaN (two runs that diverge alike)."""
    return a.shape == b.shape and torch.allclose(
        a.detach().cpu(), b.detach().cpu(), rtol=1e-4, atol=1e-5, equal_nan=True
    )


def _compare_params(got_run, want_run, replay, names, what, observed):
    """The trained parameters against the reference's: a model left as it started, each
    replayed classic mistake, and then an optimizer seen in the learner's own run
    (``observed``) are named before the first differing value."""
    we, wz = what.en, what.zh
    got = [
        expect_tensor(g, Text(f"{we}: {n}", f"{wz}：{n}")) for g, n in zip(got_run["params"], names)
    ]
    want = want_run["params"]
    if len(got) == len(want) and all(_close(g, w) for g, w in zip(got, want)):
        return
    if len(got) == len(want) and all(_close(g, s) for g, s in zip(got, got_run["start"])):
        losses = _losses(got_run, what)
        if losses.numel() > 1 and not torch.allclose(losses, losses[:1].expand_as(losses)):
            fail(
                f"{we}: the model you were given still has its initial parameters, although your "
                "losses change from epoch to epoch: you trained another model (a copy, such as "
                "copy.deepcopy(model)). Train the model passed in, in place: "
                "torch.optim.SGD(model.parameters(), lr=lr).",
                f"{wz}：传入的模型仍保持初始参数，但你的损失却在逐个 epoch 变化：你训练的是另一个"
                "模型（副本，例如 copy.deepcopy(model)）。请原地训练传入的模型："
                "torch.optim.SGD(model.parameters(), lr=lr)。",
                evidence=["values_differ", "trained_a_copy"],
            )
    losses = _readable_losses(got_run)
    want_losses = _losses(want_run, Text("the reference solution", "参考答案"))
    finite = all(bool(torch.isfinite(g).all()) for g in got)
    for kind, (evidence, en, zh) in STORIES.items():
        mistake = replay(_Mistake(kind))
        # a run that ends in NaN matches any other such run by its parameters alone: its losses
        # must be the mistake's too
        if _same_params(got_run, mistake) and (
            finite
            or (
                losses is not None
                and losses.shape == _losses(mistake, what).shape
                and torch.allclose(losses, _losses(mistake, what), equal_nan=True)
            )
        ):
            fail(f"{we}: {en}.", f"{wz}：{zh}。", evidence=["values_differ", evidence])
    # the stories the run shows by itself, each tried only when the one before does not hold
    stories = [lambda: observed()]
    if losses is not None:
        stories = [
            lambda: _first_loss_story(losses, want_losses, want_run["n"]),
            lambda: stale_loss_story(losses, _moved(got_run)),
            lambda: stops_after_first_story(losses, want_losses),
            *stories,
            lambda: None if finite or not diverged(losses) else diverged_story(losses),
        ]
    for tell in stories:
        story = tell()
        if story is not None:
            evidence, en, zh = story
            fail(f"{we}: {en}.", f"{wz}：{zh}。", evidence=["values_differ", evidence])
    for g, w, n in zip(got, want, names):
        assert_close(g, w, Text(f"{we}: {n}", f"{wz}：{n}"), rtol=1e-4, atol=1e-5)


# -- tests ----------------------------------------------------------------------------------------


def test_losses_match_reference(learner, reference, device, seed, attach):
    args = (device, seed, 32, 3, 0.1, 50)
    what = "train(model, X, y, lr=0.1, epochs=50)"
    run = _run(learner, linear_run, *args)
    got = _losses(run, what)
    want_run = once(linear_run, reference, *args)
    want = _losses(want_run, Text("the reference solution", "参考答案"))
    attach("loss_curve", {"yours": got.tolist(), "expected": want.tolist()})
    compare_losses(
        got,
        want,
        what,
        explain=_after_step(what, run, args[2], want_run),
        mistakes=_mistakes(lambda mistake: once(linear_run, mistake, *args, key=mistake.kind), run),
        observed=lambda: optimizer_used(learner, linear_run, *args, lr=0.1),
    )


def test_parameters_match_reference(learner, reference, device, seed):
    args = (device, seed, 32, 3, 0.1, 50)
    _compare_params(
        _run(learner, linear_run, *args),
        once(linear_run, reference, *args),
        lambda mistake: once(linear_run, mistake, *args, key=mistake.kind),
        ("weight", "bias"),
        Text(
            "the model after train(model, X, y, lr=0.1, epochs=50)",
            "train(model, X, y, lr=0.1, epochs=50) 之后的模型",
        ),
        lambda: optimizer_used(learner, linear_run, *args, lr=0.1),
    )


def test_first_loss_is_before_any_step(learner, reference, device, seed):
    args = (device, seed, 16, 2, 0.1, 3)
    run = _run(learner, linear_run, *args)
    got = _losses(run, "train(model, X, y, lr=0.1, epochs=3)")
    want = run["start_loss"]
    if got.numel() and torch.isclose(
        got[0], torch.tensor(want, dtype=torch.float64), rtol=1e-5, atol=1e-7
    ):
        return
    first = f"{got[0]:.6g}" if got.numel() else "nothing"
    head_en = (
        f"The first loss should be the loss of the untrained model ({want:.6g}), measured "
        f"before the first step; yours is {first}"
    )
    head_zh = (
        f"第一个损失应该是未训练模型的损失（{want:.6g}），在第一步更新之前计算；你的是 {first}"
    )
    # each story only where its evidence holds: the loss after the first step (the reference's
    # second loss), n times the untrained loss, or the first loss of a replayed mistake
    expected = _losses(
        once(linear_run, reference, *args), Text("the reference solution", "参考答案")
    )
    if (
        got.numel()
        and expected.numel() > 1
        and torch.isclose(got[0], expected[1], rtol=1e-5, atol=1e-7)
    ):
        fail(
            f"{head_en}, which is the loss after the first step. Record loss.item() of the loss "
            "you call backward() on, before optimizer.step().",
            f"{head_zh}，这是第一步更新之后的损失。请在 optimizer.step() 之前记录你调用 backward() "
            "的那个损失的 loss.item()。",
            evidence=["values_differ", "loss_after_step"],
        )
    stories = [_first_loss_story(got, expected, args[2])]
    for kind, (evidence, en, zh) in STORIES.items():
        mistake = _losses(
            once(linear_run, _Mistake(kind), *args, key=kind),
            Text("the replayed mistake", "重演的错误"),
        )
        if (
            got.numel()
            and mistake.numel()
            and not torch.isclose(mistake[0], expected[0], rtol=1e-5, atol=1e-7)
            and torch.isclose(got[0], mistake[0], rtol=1e-5, atol=1e-7)
        ):
            stories.append((evidence, en, zh))
    # trained exactly as the reference was: the loss used was right, its record is not (this
    # comes first: a first loss n times the expected one is then no summed loss)
    stories.insert(
        0,
        (
            "loss_recorded_wrong",
            "your training itself is right: the trained parameters are the expected ones, so "
            "the loss each update used is too; what differs is the number you record. Append "
            "loss.item() of each epoch's loss as it is, with no average, sum or division of "
            "your own",
            "你的训练本身是对的：训练后的参数与期望一致，所以每次更新所用的损失也是对的；不同的是你"
            "记录下来的数值。请把每个 epoch 的 loss.item() 原样追加到列表中，不要自己再求平均、"
            "求和或做除法",
        )
        if _same_params(run, once(linear_run, reference, *args))
        else None,
    )
    for story in stories:
        if story is not None:
            evidence, en, zh = story
            fail(f"{head_en}: {en}.", f"{head_zh}：{zh}。", evidence=["values_differ", evidence])
    # not the loss after the step, and the model is the one this test built and passed in:
    # the loss itself is computed another way
    fail(
        f"{head_en}. That is not the loss after the first step either, and the model is the "
        "one the test passed in: unless your code changes it first, your loss is computed "
        "another way. It is "
        "nn.MSELoss() (the mean of the squared errors) of model(X) against y, with nothing "
        "scaled or added.",
        f"{head_zh}。它也不是第一步之后的损失，而模型正是测试传入的那个：除非你的代码先改动了它，否则就是你的损失计算方式"
        "不同。损失应当是 model(X) 与 y 之间的 nn.MSELoss()（平方误差的均值），不做任何缩放、"
        "不加任何项。",
        evidence=["values_differ", "loss_not_mse"],
    )


def test_trains_any_module(learner, reference, device, seed):
    # The trained parameters of a two-layer network (its loss curve is judged by the other tests).
    _compare_params(
        _run(learner, mlp_run, device, seed, 40),
        once(mlp_run, reference, device, seed, 40),
        lambda mistake: once(mlp_run, mistake, device, seed, 40, key=mistake.kind),
        ("0.weight", "0.bias", "2.weight", "2.bias"),
        Text(
            "the two-layer network after train(mlp, X, y, lr=0.05, epochs=40)",
            "train(mlp, X, y, lr=0.05, epochs=40) 之后的两层网络",
        ),
        lambda: optimizer_used(learner, mlp_run, device, seed, 40, lr=0.05),
    )


def test_returns_one_float_per_epoch(learner, seed):
    for epochs in (1, 3):
        what = f"train(..., epochs={epochs})"
        run = _run(learner, linear_run, "cpu", seed, 8, 2, 0.1, epochs)
        losses = as_floats(run["losses"], what, tensors="reject")
        if losses.numel() != epochs:
            fail(
                f"train(..., epochs={epochs}) returned {losses.numel()} losses; expected {epochs}.",
                f"train(..., epochs={epochs}) 返回了 {losses.numel()} 个损失；应为 {epochs} 个。",
                evidence=["wrong_length"],
            )


def test_default_arguments(learner, seed):
    # The learner against the learner: train(model, X, y) must do what the same code does when
    # given lr=0.1 and epochs=50 explicitly (whether that training is right is judged elsewhere).
    plain = _run(learner, linear_run, "cpu", seed, 16, 2, None, None)
    explicit = _run(learner, linear_run, "cpu", seed, 16, 2, 0.1, 50)
    got = _losses(plain, "train(model, X, y)")
    want = _losses(explicit, "train(model, X, y, lr=0.1, epochs=50)")
    # NaN equals NaN: two runs that diverge alike are the same run
    same = got.shape == want.shape and torch.allclose(
        got, want, rtol=1e-6, atol=1e-8, equal_nan=True
    )
    same = same and all(_close(a, b) for a, b in zip(plain["params"], explicit["params"]))
    if not same:
        last = f"{got[-1].item():.6g}" if got.numel() else "nothing"
        last_want = f"{want[-1].item():.6g}" if want.numel() else "nothing"
        fail(
            "train(model, X, y) without lr and epochs should do exactly what your own "
            "train(model, X, y, lr=0.1, epochs=50) does, since lr=0.1 and epochs=50 are the "
            f"defaults; yours returned {got.numel()} losses ending at {last} without them, and "
            f"{want.numel()} ending at {last_want} with them. Give the parameters the defaults "
            "lr: float = 0.1, epochs: int = 50, and use lr and epochs (not fixed numbers).",
            "不传 lr 和 epochs 调用 train(model, X, y) 时，结果应与你自己的 "
            "train(model, X, y, lr=0.1, epochs=50) 完全相同，因为 lr=0.1、epochs=50 是默认值；"
            f"不传时你的结果有 {got.numel()} 个损失，最后一个为 {last}，传入时有 {want.numel()} 个，"
            f"最后一个为 {last_want}。请把默认值写成 lr: float = 0.1, epochs: int = 50，"
            "并且使用 lr 和 epochs（而不是写死的数字）。",
            evidence=["values_differ", "wrong_defaults"],
        )


def test_leaves_data_alone(learner, device, seed):
    # The model is trained in place; X and y are only read (the curriculum's rule).
    run = _run(learner, linear_run, device, seed, 16, 2, 0.1, 3)
    for name in ("X", "y"):
        assert_unchanged(
            run["data_before"][name],
            run["data_after"][name],
            Text(
                f"{name} after train(model, X, y, lr=0.1, epochs=3)",
                f"train(model, X, y, lr=0.1, epochs=3) 之后的 {name}",
            ),
        )
