"""Hidden tests of exercise-17: a training loop with nn.Linear and SGD.

Pitfalls from the seeds (000 §7.2, 003 §4.4): the order zero_grad, backward, step (000 §7.3;
zeroed between backward and step, the gradients are gone and the weights never move, 003 §3.3);
nn.Linear(d, 1) outputs shape (n, 1), and nn.MSELoss against a y of shape (n,) silently
broadcasts to (n, n) with only a warning (003 §2.4, the "shapes that differ a lot" warning);
torch.manual_seed must come before the model is created, since creating it draws the initial
weights (001 §8.3); a model created directly on the GPU draws other numbers than one created on
the CPU and moved (000 §3.3), so every device should start from the same weights; the loss to log
is loss.item(), measured before the step.

When a loss curve differs from the reference, the run is replayed here with each classic mistake
to name it; any other optimizer, or SGD with other settings or another lr, is named from the
optimizer the learner's run stepped (``optimizer_used``).

Each test judges one requirement (see `requirements` in exercise.yaml). The type of the losses
is judged by test_returns_model_and_floats alone; the views test compares the learner on views
with the same learner on contiguous copies (with the same global random state before each call);
only test_leaves_inputs_alone judges that X and y are left alone (input_check is off elsewhere).
"""

import re
import warnings
from contextlib import contextmanager

import torch
from torch import nn

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import (
    CheckFailed,
    LearnerRaised,
    ModuleValue,
    as_floats,
    assert_close,
    compare_losses,
    describe,
    describe_zh,
    expect_tensor,
    fail,
    loss_head,
    optimizer_used,
)
from grader.testing.checks import assert_unchanged
from grader.testing.training import (
    diverged,
    diverged_story,
    graph_reuse_named,
    overwritten_used,
    scaled_loss_story,
    stale_loss_story,
)

# -- scenarios: run next to the learner's code -------------------------------------------------


def contiguous_and_views(module, X, y, epochs, lr, seed):
    """train_regressor on contiguous X and y, then on views holding the same values (X
    transposed twice, y a column of a stacked matrix), each after the same global seed; an
    exception comes back as data (an unfinished starter's NotImplementedError is raised)."""
    X_view = X.t().contiguous().t()
    y_view = torch.stack([y, torch.zeros_like(y)], dim=1)[:, 0]
    answers = {}
    for name, (a, b) in (("contiguous", (X, y)), ("views", (X_view, y_view))):
        torch.manual_seed(1234)  # the same global state for both calls
        try:
            answers[name] = {"value": module.train_regressor(a, b, epochs, lr, seed)}
        except NotImplementedError:
            raise
        except Exception as exc:  # noqa: BLE001 - compared as data
            answers[name] = {"error": f"{type(exc).__name__}: {exc}", "type": type(exc).__name__}
    answers["X_view"], answers["y_view"] = X_view, y_view
    return answers


def train_safely(module, X, y, epochs, lr, seed):
    """train_regressor(X, y, epochs, lr, seed), an exception brought back as data (an unfinished
    starter's NotImplementedError is raised); X and y as they are after the call."""
    try:
        module.train_regressor(X, y, epochs, lr, seed)
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - judged by the training tests
        pass
    return {"X": X, "y": y}


def parameters_made(module, X, y, lr, seed):
    """How many nn.Parameter objects train_regressor creates with epochs=1 and with
    epochs=4 (each call after the same global seed), or None where a call raises: a count
    that grows with the epochs means parameters made inside the loop, a new model every epoch.
    Counted in ``nn.Parameter.__new__``, which every nn.Module's parameter goes through; a
    constant overhead (``.to(device)``) cancels between the two counts."""
    made = [0]
    original = nn.Parameter.__dict__["__new__"]
    make = nn.Parameter.__new__

    def counting(cls, *args, **kwargs):
        made[0] += 1
        return make(cls, *args, **kwargs)

    counts = []
    nn.Parameter.__new__ = counting
    try:
        for epochs in (1, 4):
            torch.manual_seed(1234)
            made[0] = 0
            try:
                module.train_regressor(X, y, epochs, lr, seed)
            except Exception:  # noqa: BLE001 - the training tests judge the run itself
                return None
            counts.append(made[0])
    finally:
        nn.Parameter.__new__ = original
    return counts


def devices_drawn_on(module, X, y, lr, seed):
    """The devices whose random generators train_regressor draws from, with epochs=0, when X
    and y live on the ``meta`` device (which has a generator of its own that gives no numbers):
    a sorted list of device types, or None where the call raises. The seeded model created
    on the CPU and moved draws on "cpu" only; one created directly on X's device
    (``nn.Linear(d, 1, device=X.device)``, ``torch.device(X.device)`` as a context) draws on
    "meta": on a GPU it would draw from the GPU's generator, other numbers than the CPU's."""
    from torch.utils._python_dispatch import TorchDispatchMode

    seen = set()

    class Draws(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            kwargs = kwargs or {}
            if torch.Tag.nondeterministic_seeded in func.tags:
                for value in (*args, *kwargs.values()):
                    if isinstance(value, torch.Tensor):
                        seen.add(value.device.type)
                        break
                else:
                    device = kwargs.get("device")
                    seen.add(torch.device(device).type if device is not None else "cpu")
            return func(*args, **kwargs)

    X_meta, y_meta = X.to("meta"), y.to("meta")
    try:
        with Draws():
            module.train_regressor(X_meta, y_meta, 0, lr, seed)
    except Exception:  # noqa: BLE001 - no evidence: the other tests judge the run
        return None
    return sorted(seen)


CASES = [  # (n, d, epochs, lr)
    (32, 3, 40, 0.1),
    (20, 1, 30, 0.05),  # one feature: the tutorial's straight line
]


def _data(rng, n, d):
    X = torch.randn(n, d, generator=rng)
    y = X @ torch.randn(d, generator=rng) + 0.5 + 0.1 * torch.randn(n, generator=rng)
    return X, y


def _what(n, d, epochs, lr, seed, note=""):
    return f"train_regressor(X, y, epochs={epochs}, lr={lr}, seed={seed}) [X: ({n}, {d}), y: ({n},){note}]"


# -- what the learner returned ------------------------------------------------------------------


def _unpack(got, what):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        fail(
            f"{what} should return a tuple (model, losses), but yours returned {describe(got)}.",
            f"{what} 应该返回元组 (model, losses)，但你的结果是 {describe_zh(got)}。",
            evidence=["wrong_type"],
        )
    if isinstance(got[1], ModuleValue) and isinstance(got[0], (list, tuple)):
        fail(
            f"{what} returned (losses, model): the model should come first. It returned "
            f"{describe(got[0])} first and the {got[1].class_name.rsplit('.', 1)[-1]} module "
            "second; the function returns (model, losses), in that order: return model, losses.",
            f"{what} 返回的是 (losses, model)：模型应该在前。它先返回了 {describe_zh(got[0])}，"
            f"然后才是 {got[1].class_name.rsplit('.', 1)[-1]} 模块；函数应按 (model, losses) 的顺序"
            "返回：return model, losses。",
            evidence=["wrong_type", "return_order_swapped"],
        )
    return got


def _model(got, d, what):
    model = _unpack(got, what)[0]
    if not isinstance(model, ModuleValue) or model.class_name.rsplit(".", 1)[-1] != "Linear":
        fail(
            f"{what} should return the trained nn.Linear(d, 1) itself as the model, but yours "
            f"returned {describe(model)}.",
            f"{what} 应该把训练好的 nn.Linear(d, 1) 本身作为模型返回，但你的结果是 {describe_zh(model)}。",
            evidence=["wrong_type"],
        )
    if set(model.parameters) != {"weight", "bias"}:
        fail(
            f"The model returned by {what} should have a weight and a bias, but it has "
            f"{', '.join(model.parameters) or 'no parameters'}.",
            f"{what} 返回的模型应该有 weight 和 bias，但它有 {', '.join(model.parameters) or '没有参数'}。",
            evidence=["wrong_type"],
        )
    return model


def _losses(got, what):
    """The losses as a float64 tensor (0-d tensors accepted here; their type is judged by
    test_returns_model_and_floats)."""
    return as_floats(_unpack(got, what)[1], what)


# -- replaying the classic mistakes ---------------------------------------------------------------


def _mistake(kind, X, y, epochs, lr, seed):
    """The same training with one classic mistake: its losses and its final parameters."""
    torch.manual_seed(seed)
    d = X.shape[1]
    if kind == "on_device":
        model = nn.Linear(d, 1, device=X.device)  # draws its weights from the device's generator
    else:
        model = nn.Linear(d, 1).to(X.device)
    if kind == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    else:
        momentum = 0.9 if kind == "momentum" else 0.0
        optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=momentum)
    target = y if kind == "broadcast" else y.unsqueeze(1)
    losses = []
    for _ in range(epochs):
        if kind != "never_zero":
            optimizer.zero_grad()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the broadcast warning
            loss = nn.functional.mse_loss(model(X), target)
        losses.append(loss.item())
        loss.backward()
        if kind == "zero_before_step":
            optimizer.zero_grad()  # clears the gradients backward() just computed
        optimizer.step()
    return {
        "losses": torch.tensor(losses, dtype=torch.float64),
        "weight": model.weight.detach(),
        "bias": model.bias.detach(),
    }


def _kinds(X):
    kinds = ["broadcast", "never_zero", "zero_before_step", "momentum", "adam"]
    if X.device.type == "cuda":
        kinds.append("on_device")
    return kinds


STORIES = {
    "broadcast": (
        "broadcast_shape",
        # the curve is the same for every pair of sides that broadcasts to (n, n): model(X) of
        # (n, 1) against y of (n,) or y.unsqueeze(0) of (1, n), and model(X).squeeze(1) of (n,)
        # against y.unsqueeze(1) (both sides reshaped): the story names them all, and the
        # captured warning says which
        "the loss compares two tensors of different shapes that broadcast to an (n, n) matrix: "
        "model(X) is (n, 1) and y is (n,), so exactly one side must be reshaped. Three pairs "
        "broadcast this way: model(X) against y as it is, model(X) against y.unsqueeze(0) of "
        "(1, n), and model(X).squeeze(1) against y.unsqueeze(1), where both sides were "
        "reshaped (nn.MSELoss gives only a warning that names both sizes, a hand-written "
        "(model(X) - y) ** 2 not even that), and the mean "
        "is taken over the wrong thing. Compare model(X) with y.unsqueeze(1), or "
        "model(X).squeeze(1) with y, not both",
        "损失比较的两个张量形状不同，被广播成了 (n, n) 矩阵：model(X) 是 (n, 1)，y 是 (n,)，"
        "所以必须恰好改变其中一边的形状。有三种组合会这样广播：model(X) 与原样的 y，model(X) 与 "
        "(1, n) 的 y.unsqueeze(0)，以及两边都改了形状的 model(X).squeeze(1) 与 y.unsqueeze(1)"
        "（nn.MSELoss 只给出一个写着两边大小的警告，手写的 (model(X) - y) ** 2 则连警告都没有），"
        "平均的根本不是你想要的东西。请用 model(X) 与 y.unsqueeze(1) 比较，或者用 "
        "model(X).squeeze(1) 与 y 比较，不要两个都做",
    ),
    "never_zero": (
        "gradients_accumulate",
        "the gradients are never zeroed and pile up step after step. Call "
        "optimizer.zero_grad() before every backward()",
        "梯度从不清零、逐步累加。每次 backward() 之前都要调用 optimizer.zero_grad()",
    ),
    "zero_before_step": (
        "parameters_never_move",
        "the weights never move: when step() runs it finds no gradients. Either the order is off "
        "(optimizer.zero_grad() between backward() and step(), or step() before backward(); "
        "the order is zero_grad, forward and loss, backward, step), or the loss does not reach the parameters "
        "through the graph (the forward pass ran under torch.no_grad() or on detached values; "
        "setting requires_grad on the prediction or the loss afterwards does not reconnect them)",
        "权重从未更新：step() 运行时找不到梯度。要么是顺序不对（optimizer.zero_grad() 放在了 backward() "
        "和 step() 之间，或者 step() 在 backward() 之前；正确的顺序是：zero_grad、前向并计算损失、backward、step），"
        "要么是损失没有经由计算图连到参数（前向计算是在 torch.no_grad() 下或在 detach 过的值上进行的；"
        "事后给预测或损失设置 requires_grad 并不能把它们重新连起来）",
    ),
    # another optimizer, zeroed correctly: the first loss agrees, then the updates differ
    "momentum": (
        "optimizer_not_plain_sgd",
        "the optimizer is SGD with momentum=0.9 (the gradients are zeroed correctly): "
        "momentum carries part of each step into the next, so the first losses agree and then "
        "the curve drifts. Use plain torch.optim.SGD(model.parameters(), lr=lr), without "
        "momentum",
        "优化器是 momentum=0.9 的 SGD（梯度清零是正确的）：动量会把每一步的一部分带到下一步，"
        "所以前几个损失一致、之后曲线逐渐偏离。请使用不带动量的普通 "
        "torch.optim.SGD(model.parameters(), lr=lr)",
    ),
    "adam": (
        "optimizer_not_plain_sgd",
        "the optimizer is torch.optim.Adam (the gradients are zeroed correctly): Adam scales "
        "every step by running averages of the gradients, which is not the plain SGD asked for. "
        "Use torch.optim.SGD(model.parameters(), lr=lr)",
        "优化器是 torch.optim.Adam（梯度清零是正确的）：Adam 会用梯度的滑动平均来缩放每一步，"
        "这不是题目要求的普通 SGD。请使用 torch.optim.SGD(model.parameters(), lr=lr)",
    ),
    "on_device": (
        "created_on_device",
        "the model was created directly on the GPU, whose random generator gives other initial "
        "weights than the CPU's. Create nn.Linear(d, 1) on the CPU and move it with .to(X.device), "
        "so that every device starts from the same weights",
        "模型是直接在 GPU 上创建的，GPU 的随机数生成器给出的初始权重与 CPU 的不同。请在 CPU 上创建 "
        "nn.Linear(d, 1)，再用 .to(X.device) 移过去，这样每个设备都从相同的权重开始",
    ),
}


def _start_of(learner, X, y, lr, seed, replays):
    """How the learner's model starts against the seeded nn.Linear(d, 1): "same", "values"
    (the same parameters, other values: drawn from another random state), "structure" (other
    parameters: no bias, another shape), or None where it cannot be seen. Read from the
    learner's own train_regressor with epochs=0, which returns the model it created before
    any step: the evidence that the start, not the loss, is what differs."""
    try:
        result = learner.train_regressor(X, y, 0, lr, seed)
    except LearnerFault:
        return None
    model = result[0] if isinstance(result, (tuple, list)) and len(result) == 2 else None
    if not isinstance(model, ModuleValue):
        return None
    start = replays["zero_before_step"]()  # the seeded model, never stepped
    mine = model.parameters
    if set(mine) != {"weight", "bias"} or any(
        not isinstance(mine[k], torch.Tensor) or mine[k].shape != start[k].shape
        for k in ("weight", "bias")
    ):
        return "structure"
    return "same" if _same_params(mine, start) else "values"


def _model_in_loop(learner, X, y, lr, seed):
    """(evidence, English, Chinese) where the learner's train_regressor makes more
    parameters for 4 epochs than for 1 (:func:`parameters_made`): the model is created inside
    the loop, so every epoch starts again from new weights. None where it does not, or where
    the run cannot be observed (a fault of the learner's: the tests' own verdicts stand)."""
    try:
        counts = learner.run(parameters_made, X, y, lr, seed)
    except LearnerFault:
        return None
    if not (
        isinstance(counts, list)
        and len(counts) == 2
        and all(type(c) is int for c in counts)
        and counts[1] > counts[0]
    ):
        return None
    one, four = counts
    return (
        "model_in_loop",
        f"your train_regressor creates new parameters in every epoch ({one} for epochs=1, "
        f"{four} for epochs=4): the model is created inside the loop, so each epoch starts "
        "again from freshly drawn weights and nothing learned is kept (and an optimizer made "
        "before the loop goes on updating the first model's parameters, which no longer take "
        "part). Create the model and the optimizer once, before the loop, right after "
        "torch.manual_seed(seed); inside the loop only zero_grad, forward and loss, backward, "
        "step",
        f"你的 train_regressor 在每个 epoch 都创建了新的参数（epochs=1 时 {one} 个，epochs=4 时 "
        f"{four} 个）：模型是在循环里创建的，所以每个 epoch 都从重新抽取的权重开始，学到的东西一点也"
        "留不下来（而在循环之前创建的优化器更新的仍是第一个模型的参数，它们已经不再参与计算）。请在"
        "循环之前、紧接着 torch.manual_seed(seed) 只创建一次模型和优化器；循环里只做 zero_grad、"
        "前向并计算损失、backward、step",
    )


def _in_loop(learner, X, y, lr, seed):
    """(evidence, English, Chinese) where the learner's loop starts again every epoch: a new
    model made inside it (:func:`_model_in_loop`), or the weights reset or overwritten between
    an optimizer step and the next forward pass (``overwritten_used``); None where neither
    is seen."""
    story = _model_in_loop(learner, X, y, lr, seed)
    if story is None:
        story = overwritten_used(learner, train_safely, X, y, 4, lr, seed)
    return story


def _first_loss(got, want, what, replays, n, start=None, in_loop=None):
    """Fail, naming the likely mistake, if the first loss (before any step) is not the reference's.
    ``start()`` says how the learner's model starts (:func:`_start_of`): a story about the
    seed is told only where the learner's own start differs from the seeded model's.
    ``in_loop()`` (:func:`_in_loop`) names a loop that starts again every epoch (a model reset
    before the first forward pass gives another first loss from the right start)."""
    if got.numel() and torch.isclose(got[0], want[0], rtol=1e-5, atol=1e-7):
        return
    first = f"{got[0]:.6g}" if got.numel() else "nothing"
    scaled = _scaled(got, want, n)
    if scaled is not None:
        evidence, en, zh = scaled
        fail(f"{what}: {en}.", f"{what}：{zh}。", evidence=["values_differ", evidence])
    for kind in replays:
        mistake = replays[kind]()["losses"]
        if got.numel() and torch.isclose(got[0], mistake[0], rtol=1e-5, atol=1e-7):
            evidence, en, zh = STORIES[kind]
            fail(
                f"{what}: the first loss is {first}, expected {want[0]:.6g}: {en}.",
                f"{what}：第一个损失为 {first}，期望 {want[0]:.6g}：{zh}。",
                evidence=["values_differ", evidence],
            )
    if (
        got.numel() > 0
        and want.numel() > 1
        and torch.isclose(got[0], want[1], rtol=1e-5, atol=1e-7)
    ):
        fail(
            f"{what}: the first loss is {first}, which is the loss after the first step; each "
            f"epoch's loss must be measured before its step (expected {want[0]:.6g}).",
            f"{what}：第一个损失为 {first}，这是第一步更新之后的损失；每个 epoch 的损失都必须在该步"
            f"更新之前计算（期望 {want[0]:.6g}）。",
            evidence=["values_differ", "loss_after_step"],
        )
    story = in_loop() if in_loop is not None else None
    if story is not None:
        evidence, en, zh = story
        fail(
            f"{what}: the first loss is {first}, expected {want[0]:.6g}: {en}.",
            f"{what}：第一个损失为 {first}，期望 {want[0]:.6g}：{zh}。",
            evidence=["values_differ", evidence],
        )
    verdict = start() if start is not None else None
    if verdict == "same":
        fail(
            f"{what}: the first loss, measured before any step, is {first}, expected "
            f"{want[0]:.6g}, although your model starts from the expected weights (your "
            "train_regressor with epochs=0 returns the seeded nn.Linear): the loss itself is "
            "computed another way. It is nn.MSELoss(), the mean of the squared errors, between "
            "model(X) of shape (n, 1) and y as a column, y.unsqueeze(1), with nothing added.",
            f"{what}：在任何更新之前计算的第一个损失为 {first}，期望 {want[0]:.6g}，而你的模型的"
            "初始权重是对的（epochs=0 时你的 train_regressor 返回的正是按种子创建的 nn.Linear）："
            "是损失本身的计算方式不同。损失应当是 nn.MSELoss()，即 model(X)（形状为 (n, 1)）与列向量 "
            "y.unsqueeze(1) 之间平方误差的均值，不加任何其它项。",
            evidence=["values_differ", "loss_not_mse"],
        )
    if verdict == "structure":
        fail(
            f"{what}: the first loss, measured before any step, is {first}, expected "
            f"{want[0]:.6g}: your model is not nn.Linear(d, 1) as asked (the model your "
            "train_regressor returns with epochs=0 has other parameters than a weight of shape "
            "(1, d) and a bias of shape (1,)). Create nn.Linear(X.shape[1], 1), with its bias.",
            f"{what}：在任何更新之前计算的第一个损失为 {first}，期望 {want[0]:.6g}：你的模型不是题目"
            "要求的 nn.Linear(d, 1)（epochs=0 时你的 train_regressor 返回的模型，其参数不是形状为 "
            "(1, d) 的 weight 和形状为 (1,) 的 bias）。请创建带偏置的 nn.Linear(X.shape[1], 1)。",
            evidence=["values_differ", "model_not_as_asked"],
        )
    if verdict is None:
        fail(
            f"{what}: the first loss, measured before any step, is {first}, expected "
            f"{want[0]:.6g}. It is the loss of nn.Linear(d, 1) created right after "
            "torch.manual_seed(seed), before any step: nn.MSELoss() between model(X) and "
            "y.unsqueeze(1).",
            f"{what}：在任何更新之前计算的第一个损失为 {first}，期望 {want[0]:.6g}。它应当是紧接着 "
            "torch.manual_seed(seed) 创建的 nn.Linear(d, 1) 在任何更新之前的损失：model(X) 与 "
            "y.unsqueeze(1) 之间的 nn.MSELoss()。",
            evidence=["values_differ"],
        )
    fail(
        f"{what}: the first loss, measured before any step, is {first}, expected {want[0]:.6g}: "
        "the model does not start from the expected weights (your train_regressor with "
        "epochs=0 returns other weights than the seeded nn.Linear's). Call "
        "torch.manual_seed(seed) first, then create nn.Linear(d, 1) (on the CPU) right after it: "
        "creating the model draws its initial weights from the random generator.",
        f"{what}：在任何更新之前计算的第一个损失为 {first}，期望 {want[0]:.6g}：模型的初始权重与"
        "期望不同（epochs=0 时你的 train_regressor 返回的权重与按种子创建的 nn.Linear 不同）。"
        "请先调用 torch.manual_seed(seed)，紧接着（在 CPU 上）创建 nn.Linear(d, 1)："
        "创建模型时会从随机数生成器中抽取初始权重。",
        evidence=["values_differ", "seeded_too_late"],
    )


def _scaled(got, want, n):
    """The first loss n times the expected one: a summed loss (or None)."""
    if not (got.numel() and want.numel()):
        return None
    return scaled_loss_story(
        float(got[0]), float(want[0]), {n: ("the number of samples", "样本数")}
    )


def _params_of(result):
    """The weight and bias of the model the learner returned, or None where they cannot be
    read (the tests that own the returned value say why)."""
    model = result[0] if isinstance(result, (tuple, list)) and len(result) == 2 else None
    if not isinstance(model, ModuleValue):
        return None
    found = {name: model.parameters.get(name) for name in ("weight", "bias")}
    if not all(isinstance(t, torch.Tensor) for t in found.values()):
        return None
    return found


def _same_params(params, other):
    """The learner's weight and bias are ``other``'s (NaN equal to NaN)."""
    return all(
        params[name].shape == other[name].shape
        and torch.allclose(
            params[name].detach().cpu(), other[name].cpu(), rtol=1e-4, atol=1e-5, equal_nan=True
        )
        for name in ("weight", "bias")
    )


def _moved(model, replays):
    """The returned model's weights are not those of a loop that never steps (the seeded
    start); False where they cannot be read."""
    params = _params_of((model, None))
    return params is not None and not _same_params(params, replays["zero_before_step"]())


def _compare_curves(got, want, what, replays, observed, params, n, start=None, in_loop=None):
    """The learner's curve against the reference's: a wrong first loss is explained first, then
    a curve that never changes while the weights do, then a replayed classic mistake is named
    (only when the learner's weights are the mistake's too, where they can be read), then an
    optimizer seen in the learner's own run."""

    def replayed(kind):
        mistake = replays[kind]()
        if params is not None and not _same_params(params, mistake):
            return None
        return mistake["losses"]

    mistakes = []
    for kind in replays:
        evidence, en, zh = STORIES[kind]
        mistakes.append((lambda kind=kind: replayed(kind), en, zh, ["values_differ", evidence]))

    def told(story, got, want):
        if story is not None:
            evidence, en, zh = story
            fail(
                f"{what}: {en}. First losses: yours {loss_head(got)}, expected {loss_head(want)}.",
                f"{what}：{zh}。前几个损失：你的 {loss_head(got)}，期望 {loss_head(want)}。",
                evidence=["values_differ", evidence],
            )

    def explain(got, want):
        _first_loss(got, want, what, replays, n, start, in_loop)
        # a new model every epoch: the flat or jumping curve is not a stale prediction nor
        # a mistake in the order (``in_loop()``: :func:`_model_in_loop`)
        told(in_loop() if in_loop is not None else None, got, want)
        # the start is right here: weights that are not those of a loop that never steps moved
        moved = params is not None and not _same_params(params, replays["zero_before_step"]())
        told(stale_loss_story(got, moved), got, want)

    compare_losses(
        got,
        want,
        what,
        explain=explain,
        mistakes=mistakes,
        observed=observed,
    )


def _replays(X, y, epochs, lr, seed):
    """Lazily computed (and cached) replays of each classic mistake on these inputs."""
    cache = {}

    def replay(kind):
        if kind not in cache:
            cache[kind] = _mistake(kind, X, y, epochs, lr, seed)
        return cache[kind]

    return {kind: (lambda kind=kind: replay(kind)) for kind in _kinds(X)}


def _optimizer_seen(learner, X, y, epochs, lr, seed):
    """The ``observed`` of a comparison: how the optimizer the learner's code creates on these
    inputs differs from plain SGD with this lr (one more run, made only when asked)."""
    return lambda: optimizer_used(learner, train_safely, X, y, epochs, lr, seed, lr=lr)


def _compare_model(model, want, what, replays, observed, losses, want_losses, n, in_loop=None):
    """The returned model against the reference's: a replayed classic mistake, an optimizer
    seen in the learner's run, a summed loss or a training that blew up (from the learner's
    losses, ``None`` where they cannot be read) are named before the first differing value."""
    for name in ("weight", "bias"):
        got = expect_tensor(model.parameters[name], f"{what} → model.{name}")
        expected = getattr(want, name).detach()
        if got.shape == expected.shape and not torch.allclose(
            got.detach().cpu(), expected.cpu(), rtol=1e-4, atol=1e-5
        ):
            story = in_loop() if in_loop is not None else None
            if story is not None:
                evidence, en, zh = story
                fail(
                    f"The model returned by {what} differs from the reference's: {en}.",
                    f"{what} 返回的模型与参考答案不同：{zh}。",
                    evidence=["values_differ", evidence],
                )
            if losses is not None:
                finite = bool(torch.isfinite(got.detach()).all())
                for story in (
                    _scaled(losses, want_losses, n),
                    stale_loss_story(losses, _moved(model, replays)),
                    None if finite or not diverged(losses) else diverged_story(losses),
                ):
                    if story is not None:
                        evidence, en, zh = story
                        fail(
                            f"The model returned by {what} differs from the reference's: {en}.",
                            f"{what} 返回的模型与参考答案不同：{zh}。",
                            evidence=["values_differ", evidence],
                        )
            for kind in replays:
                mistake = replays[kind]()[name]
                if torch.allclose(got.detach().cpu(), mistake.cpu(), rtol=1e-4, atol=1e-5):
                    evidence, en, zh = STORIES[kind]
                    fail(
                        f"The model returned by {what} is the one trained when {en}.",
                        f"{what} 返回的模型正是在这种情况下训练出来的：{zh}。",
                        evidence=["values_differ", evidence],
                    )
            story = observed()
            if story is not None:
                evidence, en, zh = story
                fail(
                    f"The model returned by {what} differs from the reference's: {en}.",
                    f"{what} 返回的模型与参考答案不同：{zh}。",
                    evidence=["values_differ", evidence],
                )
        assert_close(got, expected, f"{what} → model.{name}", rtol=1e-4, atol=1e-5)


# -- a model sized by the samples -----------------------------------------------------------------

_MATMUL = re.compile(r"shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")


def _sentence(text, stop="."):
    """``text`` ending with a full stop, for a sentence to follow."""
    text = text.rstrip()
    return text if text.endswith((".", "。")) else text + stop


@contextmanager
def _in_features_named(X):
    """train_regressor raising "mat1 and mat2 shapes cannot be multiplied (n x d and n x 1)":
    X of shape (n, d) met a weight made for n inputs, that is nn.Linear(X.shape[0], 1). Names
    that, in place of the catalogue's advice to transpose or reshape an operand (transposing X
    would make it worse)."""
    try:
        yield
    except LearnerRaised as exc:
        n, d = X.shape
        found = _MATMUL.search(exc.text)
        if found is not None and n != d and tuple(map(int, found.groups())) == (n, d, n, 1):
            exc.message = Text(
                f"{_sentence(exc.message.en)} X has shape ({n}, {d}): {n} samples of {d} "
                f"features, but your model expects {n} inputs per sample (its weight has "
                f"shape (1, {n})): nn.Linear was given the number of samples, X.shape[0] (or "
                "len(X)). in_features is the number of features of one sample: "
                "nn.Linear(X.shape[1], 1). Do not transpose X: each row must stay one sample.",
                f"{_sentence(exc.message.zh, '。')}X 的形状为 ({n}, {d})：{n} 个样本、每个 {d} 个特征，"
                f"但你的模型期望每个样本有 {n} 个输入（它的 weight 形状为 (1, {n})）：传给 nn.Linear "
                "的是样本数 X.shape[0]（或 len(X)）。in_features 是一个样本的特征数："
                "nn.Linear(X.shape[1], 1)。不要转置 X：每一行必须仍是一个样本。",
            )
            exc.evidence = (*exc.evidence, "in_features_is_n_samples")
        raise


def _train(learner, X, y, epochs, lr, seed):
    """learner.train_regressor(X, y, epochs, lr, seed), a model sized by the samples and a
    graph reused across epochs named."""
    with _in_features_named(X), graph_reuse_named():
        return learner.train_regressor(X, y, epochs, lr, seed)


def _readable_losses(result, what):
    """The losses as numbers, or None where they are not readable (judged elsewhere)."""
    try:
        return _losses(result, what)
    except CheckFailed:
        return None


# -- tests ----------------------------------------------------------------------------------------


def test_losses_match_reference(learner, reference, device, rng, seed, attach):
    for i, (n, d, epochs, lr) in enumerate(CASES):
        X, y = (t.to(device) for t in _data(rng, n, d))
        what = _what(n, d, epochs, lr, seed + i)
        result = _train(learner, X, y, epochs, lr, seed + i)
        got = _losses(result, what)
        want = _losses(
            reference.train_regressor(X, y, epochs, lr, seed + i),
            Text("the reference solution", "参考答案"),
        )
        if i == 0:
            attach("loss_curve", {"yours": got.tolist(), "expected": want.tolist()})
        replays = _replays(X, y, epochs, lr, seed + i)
        _compare_curves(
            got,
            want,
            what,
            replays,
            _optimizer_seen(learner, X, y, epochs, lr, seed + i),
            _params_of(result),
            n,
            start=lambda X=X, y=y, lr=lr, s=seed + i, r=replays: _start_of(learner, X, y, lr, s, r),
            in_loop=lambda X=X, y=y, lr=lr, s=seed + i: _in_loop(learner, X, y, lr, s),
        )


def test_first_loss_before_training(learner, reference, device, rng, seed):
    n, d, epochs, lr = 16, 2, 3, 0.1
    X, y = (t.to(device) for t in _data(rng, n, d))
    what = _what(n, d, epochs, lr, seed)
    got = _losses(_train(learner, X, y, epochs, lr, seed), what)
    want = _losses(
        reference.train_regressor(X, y, epochs, lr, seed),
        Text("the reference solution", "参考答案"),
    )
    replays = _replays(X, y, epochs, lr, seed)
    _first_loss(
        got,
        want,
        what,
        replays,
        n,
        lambda: _start_of(learner, X, y, lr, seed, replays),
        lambda: _in_loop(learner, X, y, lr, seed),
    )
    _created_on_cpu(learner, X.cpu(), y.cpu(), lr, seed)


def _created_on_cpu(learner, X, y, lr, seed):
    """Fail where train_regressor, given X and y on the ``meta`` device, draws its random
    numbers there and none on the CPU (:func:`devices_drawn_on`): the model is created on X's
    device, which on the CPU draws the very weights expected, but on a GPU draws them from the
    GPU's generator. No verdict where the call cannot run on meta."""
    try:
        drawn = learner.run(devices_drawn_on, X, y, lr, seed)
    except LearnerFault:
        return
    if not (isinstance(drawn, list) and "meta" in drawn and "cpu" not in drawn):
        return
    call = "train_regressor(X, y, epochs=0, lr, seed)"
    fail(
        f"{call} [X and y on the meta device]: your model draws its initial weights from the random generator of X's device, "
        "not from the CPU's that torch.manual_seed(seed) seeded: it is created directly on X's "
        "device (nn.Linear(d, 1, device=X.device), or inside with torch.device(...)). On the CPU "
        "this happens to give the expected weights; on a GPU it draws other numbers, so the "
        "same seed gives another model there. Create nn.Linear(d, 1) on the CPU and move it "
        "with .to(X.device).",
        f"{call} [X 和 y 在 meta 设备上]：你的模型从 X 所在设备的随机数生成器中抽取初始权重，而不是从 torch.manual_seed(seed) "
        "设定的 CPU 生成器中抽取：模型是直接在 X 的设备上创建的（nn.Linear(d, 1, device=X.device)，"
        "或者在 with torch.device(...) 之内）。在 CPU 上这恰好得到期望的权重；在 GPU 上抽出的是别的数，"
        "同一个种子在那里得到另一个模型。请在 CPU 上创建 nn.Linear(d, 1)，再用 .to(X.device) 移过去。",
        evidence=["drawn_on_device"],
    )


def test_model_matches_reference(learner, reference, device, rng, seed):
    for i, (n, d, epochs, lr) in enumerate(CASES):
        X, y = (t.to(device) for t in _data(rng, n, d))
        what = _what(n, d, epochs, lr, seed + i)
        result = _train(learner, X, y, epochs, lr, seed + i)
        model = _model(result, d, what)
        want, want_losses = reference.train_regressor(X, y, epochs, lr, seed + i)
        _compare_model(
            model,
            want,
            what,
            _replays(X, y, epochs, lr, seed + i),
            _optimizer_seen(learner, X, y, epochs, lr, seed + i),
            _readable_losses(result, what),
            torch.tensor(want_losses, dtype=torch.float64),
            n,
            in_loop=lambda X=X, y=y, lr=lr, s=seed + i: _in_loop(learner, X, y, lr, s),
        )


def test_same_seed_same_model(learner, rng, seed):
    n, d, epochs, lr = 16, 3, 5, 0.1
    X, y = _data(rng, n, d)
    runs = [
        _losses(_train(learner, X, y, epochs, lr, s), _what(n, d, epochs, lr, s))
        for s in (seed, seed, seed + 1)
    ]
    what = _what(n, d, epochs, lr, seed)
    # NaN equals NaN: two runs that diverge alike are the same run
    if runs[0].shape != runs[1].shape or not torch.allclose(
        runs[0], runs[1], rtol=1e-6, atol=1e-8, equal_nan=True
    ):
        fail(
            f"Called twice, {what} gave two different loss curves (first losses {loss_head(runs[0])} "
            f"and {loss_head(runs[1])}): the initial weights do not depend only on seed. Call "
            "torch.manual_seed(seed) before creating nn.Linear(d, 1), not after.",
            f"调用两次 {what} 得到了两条不同的损失曲线（前几个损失分别为 {loss_head(runs[0])} 和 "
            f"{loss_head(runs[1])}）：初始权重并非只由 seed 决定。请在创建 nn.Linear(d, 1) 之前调用 "
            "torch.manual_seed(seed)，而不是之后。",
            evidence=["values_differ", "seeded_too_late"],
        )
    if runs[2].numel() and runs[0].numel() and torch.isclose(runs[0][0], runs[2][0]):
        fail(
            f"{what} and the same call with seed={seed + 1} start from the same loss "
            f"({runs[0][0]:.6g}): the seed argument is not used. Call torch.manual_seed(seed).",
            f"{what} 与 seed={seed + 1} 的同样调用从相同的损失（{runs[0][0]:.6g}）开始：没有使用 "
            "seed 参数。请调用 torch.manual_seed(seed)。",
            evidence=["values_differ", "seed_ignored"],
        )


def test_returns_model_and_floats(learner, rng, seed):
    for epochs in (1, 4):
        n, d, lr = 8, 2, 0.1
        X, y = _data(rng, n, d)
        what = _what(n, d, epochs, lr, seed)
        got = _train(learner, X, y, epochs, lr, seed)
        model = _model(got, d, what)
        weight, bias = model.parameters["weight"], model.parameters["bias"]
        if tuple(weight.shape) != (1, d) or tuple(bias.shape) != (1,):
            fail(
                f"The model returned by {what} should be nn.Linear({d}, 1) (weight of shape "
                f"(1, {d}), bias of shape (1,)), but its weight has shape {tuple(weight.shape)} "
                f"and its bias {tuple(bias.shape)}.",
                f"{what} 返回的模型应为 nn.Linear({d}, 1)（weight 形状为 (1, {d})，bias 形状为 "
                f"(1,)），但它的 weight 形状为 {tuple(weight.shape)}，bias 形状为 {tuple(bias.shape)}。",
                evidence=["wrong_shape"],
            )
        losses = _unpack(got, what)[1]
        if not isinstance(losses, list) or len(losses) != epochs:
            fail(
                f"{what} should return a list of {epochs} losses, one per epoch, but yours "
                f"returned {describe(losses)}.",
                f"{what} 应该返回包含 {epochs} 个损失的列表（每个 epoch 一个），但你的结果是 "
                f"{describe_zh(losses)}。",
                evidence=["wrong_length"],
            )
        as_floats(losses, what, tensors="reject", ints=False)


def test_non_contiguous(learner, device, rng, seed):
    # The learner on views against the same learner on contiguous copies of the same values.
    n, d, epochs, lr = 24, 3, 20, 0.1
    X, y = (t.to(device) for t in _data(rng, n, d))
    what = _what(n, d, epochs, lr, seed, ", X = X.t().contiguous().t(), y = stack([y, 0], 1)[:, 0]")
    runs = learner.run(contiguous_and_views, X, y, epochs, lr, seed)
    plain, views = runs["contiguous"], runs["views"]
    if "error" in views:
        if "error" in plain and plain["type"] == views["type"]:
            return  # it fails the same way on contiguous inputs: the training tests report that
        # Its own error on views, diagnosed.
        learner.train_regressor(runs["X_view"], runs["y_view"], epochs, lr, seed)
        fail(
            f"{what} raised {views['error'][:300]}, but not on contiguous copies of X and y.",
            f"{what} 抛出了 {views['error'][:300]}，但在 X 和 y 的连续副本上没有。",
            evidence=["fails_on_views"],
        )
    if "error" in plain:
        return
    label = Text(
        f"{what}, against your own result on contiguous copies of X and y",
        f"{what}，与你自己在 X 和 y 的连续副本上的结果相比",
    )
    got = _losses(views["value"], label)
    want = _losses(plain["value"], label)
    compare_losses(got, want, label, rtol=1e-5, atol=1e-7)
    model, other = _unpack(views["value"], what)[0], _unpack(plain["value"], what)[0]
    if isinstance(model, ModuleValue) and isinstance(other, ModuleValue):
        for name in ("weight", "bias"):
            if name in model.parameters and name in other.parameters:
                inner = Text(f"{label.en} → model.{name}", f"{label.zh} → model.{name}")
                assert_close(
                    expect_tensor(model.parameters[name], inner),
                    expect_tensor(other.parameters[name], inner),
                    inner,
                    rtol=1e-5,
                    atol=1e-6,
                    equal_nan=True,  # the same learner on the same values, diverging alike
                )


def test_leaves_inputs_alone(learner, device, rng, seed):
    n, d, epochs, lr = 12, 2, 3, 0.1
    X, y = (t.to(device) for t in _data(rng, n, d))
    run = learner.run(train_safely, X, y, epochs, lr, seed)
    what = _what(n, d, epochs, lr, seed)
    for name, before in (("X", X), ("y", y)):
        assert_unchanged(before, run[name], Text(f"{name} after {what}", f"{what} 之后的 {name}"))
