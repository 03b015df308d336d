"""Hidden tests of exercise-14: zero_grad placement.

The training runs next to the learner's code (``learner.run``), on data and initial weights that
depend only on the seed, so the learner's loss curve and final parameters can be compared with
the reference's. When they differ, the same run with the two classic mistakes (gradients never
zeroed, gradients zeroed between backward and step) is replayed here to name the mistake.
"""

import torch
from torch import nn

from grader.testing import as_floats, assert_close, compare_losses, expect_tensor, fail


def linear_run(module, device, seed, n, d, lr, epochs):
    """Train a fresh nn.Linear(d, 1) with module.train on seeded data."""
    torch.manual_seed(seed)
    X = torch.randn(n, d)
    y = X @ torch.randn(d, 1) + 0.5 + 0.1 * torch.randn(n, 1)
    model = nn.Linear(d, 1)
    model, X, y = model.to(device), X.to(device), y.to(device)
    if lr is None:
        losses = module.train(model, X, y)
    else:
        losses = module.train(model, X, y, lr=lr, epochs=epochs)
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


def mlp_run(module, device, seed, epochs):
    """Train a small two-layer network with module.train on seeded data."""
    torch.manual_seed(seed)
    X = torch.randn(24, 3)
    y = torch.sin(X.sum(dim=1, keepdim=True))
    model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
    model, X, y = model.to(device), X.to(device), y.to(device)
    losses = module.train(model, X, y, lr=0.05, epochs=epochs)
    return {"losses": losses, "params": [p.detach().clone() for p in model.parameters()]}


class _Mistake:
    """A training loop with one classic mistake, to recognise it in a learner's curve."""

    def __init__(self, kind):
        self.kind = kind

    def train(self, model, X, y, lr=0.1, epochs=50):
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        losses = []
        for _ in range(epochs):
            loss = nn.functional.mse_loss(model(X), y)
            losses.append(loss.item())
            loss.backward()
            if self.kind == "zero_before_step":
                optimizer.zero_grad()
            optimizer.step()
        return losses


def _losses(run, what):
    return as_floats(run["losses"], what, tensors="reject")


STORIES = {  # (evidence, English, Chinese): how a replayed mistake shows in the loss curve
    "zero_before_step": (
        "parameters_never_move",
        "the loss never changes: the parameters are never updated",
        "损失始终不变：参数从未被更新",
    ),
    "never_zero": (
        "gradients_accumulate",
        "the loss follows the curve of gradients that are never zeroed and pile up step after step",
        "损失的变化与梯度从不清零、逐步累加时完全一样",
    ),
}


def _compare_curves(got, want, what, replay, attach):
    """The learner's curve against the reference's; a replayed classic mistake is named."""
    attach("loss_curve", {"yours": got.tolist(), "expected": want.tolist()})
    compare_losses(
        got,
        want,
        what,
        mistakes=[
            (lambda kind=kind: replay(_Mistake(kind)), en, zh, [evidence])
            for kind, (evidence, en, zh) in STORIES.items()
        ],
    )


def test_losses_match_reference(learner, reference, device, seed, attach):
    args = (device, seed, 32, 3, 0.1, 50)
    got = _losses(learner.run(linear_run, *args), "train(model, X, y, lr=0.1, epochs=50)")
    want = _losses(linear_run(reference, *args), "reference")
    _compare_curves(
        got,
        want,
        "train(model, X, y, lr=0.1, epochs=50)",
        lambda mistake: _losses(linear_run(mistake, *args), "replay"),
        attach,
    )


def test_parameters_match_reference(learner, reference, device, seed):
    args = (device, seed, 32, 3, 0.1, 50)
    got = learner.run(linear_run, *args)["params"]
    want = linear_run(reference, *args)["params"]
    for name, g, w in zip(("weight", "bias"), got, want):
        assert_close(
            expect_tensor(g, f"the trained model's {name}"),
            w,
            f"the trained model's {name}",
            rtol=1e-4,
            atol=1e-5,
        )


def test_first_loss_is_before_any_step(learner, reference, device, seed):
    args = (device, seed, 16, 2, 0.1, 3)
    got = _losses(learner.run(linear_run, *args), "train(model, X, y, lr=0.1, epochs=3)")
    want = _losses(linear_run(reference, *args), "reference")
    if got.numel() == 0 or not torch.isclose(got[0], want[0], rtol=1e-5, atol=1e-7):
        first = f"{got[0]:.6g}" if got.numel() else "nothing"
        fail(
            f"The first loss should be the loss of the untrained model ({want[0]:.6g}), measured "
            f"before the first step; yours is {first}.",
            f"第一个损失应该是未训练模型的损失（{want[0]:.6g}），在第一步更新之前计算；你的是 {first}。",
            evidence=["loss_after_step"],
        )


def test_trains_any_module(learner, reference, device, seed, attach):
    got_run = learner.run(mlp_run, device, seed, 40)
    want_run = mlp_run(reference, device, seed, 40)
    got = _losses(got_run, "train(mlp, X, y, lr=0.05, epochs=40)")
    want = _losses(want_run, "reference")
    _compare_curves(
        got,
        want,
        "train(mlp, X, y, lr=0.05, epochs=40) on a two-layer network",
        lambda mistake: _losses(mlp_run(mistake, device, seed, 40), "replay"),
        attach,
    )
    for i, (g, w) in enumerate(zip(got_run["params"], want_run["params"])):
        assert_close(
            expect_tensor(g, f"parameter {i} of the trained network"),
            w,
            f"parameter {i} of the trained network",
            rtol=1e-4,
            atol=1e-5,
        )


def test_returns_one_float_per_epoch(learner, seed):
    for epochs in (1, 3):
        losses = _losses(
            learner.run(linear_run, "cpu", seed, 8, 2, 0.1, epochs), f"train(..., epochs={epochs})"
        )
        if losses.numel() != epochs:
            fail(
                f"train(..., epochs={epochs}) returned {losses.numel()} losses; expected {epochs}.",
                f"train(..., epochs={epochs}) 返回了 {losses.numel()} 个损失；应为 {epochs} 个。",
                evidence=["wrong_length"],
            )


def test_default_arguments(learner, reference, seed):
    got = _losses(learner.run(linear_run, "cpu", seed, 16, 2, None, None), "train(model, X, y)")
    want = _losses(linear_run(reference, "cpu", seed, 16, 2, None, None), "reference")
    if got.shape != want.shape or not torch.allclose(got, want, rtol=1e-4, atol=1e-6):
        fail(
            "train(model, X, y) without lr and epochs should use the defaults lr=0.1 and "
            f"epochs=50; yours returned {got.numel()} losses ending at "
            f"{got[-1].item() if got.numel() else float('nan'):.6g} (expected {want.numel()} ending at {want[-1]:.6g}).",
            "不传 lr 和 epochs 调用 train(model, X, y) 时应使用默认值 lr=0.1、epochs=50；"
            f"你的结果有 {got.numel()} 个损失，最后一个为 "
            f"{got[-1].item() if got.numel() else float('nan'):.6g}（期望 {want.numel()} 个，最后一个为 {want[-1]:.6g}）。",
            evidence=["values_differ"],
        )
