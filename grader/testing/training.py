"""Loss curves in hidden tests: the losses a learner's training loop returns, and their
comparison with the reference's.

A training exercise compares the learner's list of losses with the reference's on the same
seeded data. :func:`as_floats` turns the learner's list into numbers (or fails, naming what came
back), :func:`compare_losses` compares two curves and, when they differ, tries the exercise's
replays of classic mistakes before it reports the first differing loss. The replays themselves,
and the stories that name each mistake, belong to the exercise.
"""

from __future__ import annotations

import copy
import math
import re
import types
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import torch

from grader.sandbox.faults import LearnerFault, LearnerRaised
from grader.spec import Text
from grader.testing.checks import describe, describe_zh, fail, names
from grader.testing.proxy import LearnerProxy

# once(): a worker's trusted runs, by scenario, module and arguments -> (a copy of the value,
# the generators' states the run left). A worker grades one exercise with one seed, for a
# group of submissions, and starts empty (it is forked before any run).
_RUNS: dict[Hashable, tuple[Any, tuple[torch.Tensor, list[torch.Tensor] | None]]] = {}


def _generators() -> tuple[torch.Tensor, list[torch.Tensor] | None]:
    """The CPU generator's state, and the CUDA generators' where CUDA is started (a CUDA
    pass's worker: ``torch.manual_seed`` in a scenario reseeds them too)."""
    cuda = torch.cuda.get_rng_state_all() if torch.cuda.is_initialized() else None
    return torch.get_rng_state(), cuda


def _restore(states: tuple[torch.Tensor, list[torch.Tensor] | None]) -> None:
    cpu, cuda = states
    torch.set_rng_state(cpu)
    if cuda is not None:
        torch.cuda.set_rng_state_all(cuda)


def once(scenario: Callable[..., Any], module: Any, *args: Hashable, key: Hashable = None) -> Any:
    """``scenario(module, *args)`` on the trusted side, run once per grading worker: a group
    of submissions of one exercise compares each with the same reference run (and the same
    replays of classic mistakes), which a training exercise otherwise repeats for every
    submission.

    Only for a scenario whose result depends on nothing but its arguments: it seeds every
    random number it draws (``torch.manual_seed(seed)`` first) and builds everything it
    touches, as the scenarios sent to the learner's side do. Each call returns a fresh copy of
    the value, and leaves torch's generators (the CPU's, and CUDA's once started) as the run
    left them, so nothing after it can tell a remembered run from a new one. ``module`` is the
    reference module (``reference``) or, with ``key`` naming it, any other object the scenario
    trains here (a replayed mistake); never ``learner``, whose answers are one submission's
    and must not reach a classmate's grading (refused). Arguments that cannot be hashed
    (tensors) are run every time."""
    if isinstance(module, LearnerProxy):
        raise TypeError("once() runs trusted code only: call learner.run(...) for the learner")
    if key is None:
        if not isinstance(module, types.ModuleType):
            raise TypeError("once(): name a module that is not the reference with key=")
        key = module.__name__
    try:
        identity = (scenario.__module__, scenario.__qualname__, key, args)
        hash(identity)
    except TypeError:
        return scenario(module, *args)
    if identity in _RUNS:
        value, states = _RUNS[identity]
        _restore(states)
        return copy.deepcopy(value)
    value = scenario(module, *args)
    try:
        _RUNS[identity] = (copy.deepcopy(value), _generators())
    except (TypeError, ValueError, RuntimeError, copy.Error):
        pass  # a value that cannot be copied is run again next time
    return value


# per= of compare_losses: what one loss stands for, and how the n-th one is named.
_PER = {
    "epoch": ("epoch", "每个 epoch", "the loss of epoch {}", "第 {} 个 epoch 的损失"),
    "step": ("step", "每一步", "the loss before step {}", "第 {} 步之前的损失"),
}


def as_floats(
    values: Any, what: str | Text, *, tensors: str = "accept", ints: bool = True
) -> torch.Tensor:
    """The learner's losses (a list or tuple of numbers) as a float64 tensor on the CPU.

    Fails with ``wrong_type`` when ``values`` is not a list or tuple, or an item is not a number
    (bools are not). ``tensors="accept"``: a one-element tensor counts as its value (where another
    test judges the type). ``tensors="reject"``: a tensor item fails with
    ``tensor_instead_of_float`` (``loss.item()`` was due: a list of tensors keeps every step's
    graph alive). ``ints=False``: an int item fails too (a Python float is due).
    """
    if tensors not in ("accept", "reject"):
        raise ValueError(f'tensors must be "accept" or "reject", not {tensors!r}')
    we, wz = names(what)
    if not isinstance(values, (list, tuple)):
        fail(
            f"{we} should return the losses as a list, but yours returned {describe(values)}.",
            f"{wz} 应该以列表形式返回损失，但你的结果是 {describe_zh(values)}。",
            evidence=["wrong_type"],
        )
    kind_en, kind_zh = ("a number", "数值") if tensors == "accept" else ("a float", "浮点数")
    numbers = []
    for i, value in enumerate(values):
        if isinstance(value, torch.Tensor):
            if tensors == "reject":
                fail(
                    f"{we} returned tensors in its list of losses (item {i} is "
                    f"{describe(value)}): append loss.item(), a Python float, so the list does "
                    "not keep every step's graph alive.",
                    f"{wz} 返回的损失列表中是张量（第 {i} 项是 {describe_zh(value)}）：请追加 "
                    "loss.item()（Python 浮点数），这样列表就不会让每一步的计算图一直占用内存。",
                    evidence=["tensor_instead_of_float"],
                )
            if value.numel() == 1:
                value = float(value.detach().cpu().reshape(()))
        number = isinstance(value, float) or (
            ints and isinstance(value, int) and not isinstance(value, bool)
        )
        if not number:
            fail(
                f"{we}: item {i} of the returned losses is {describe(value)}, not {kind_en}.",
                f"{wz}：返回的损失中第 {i} 项是 {describe_zh(value)}，不是{kind_zh}。",
                evidence=["wrong_type"],
            )
        numbers.append(float(value))
    return torch.tensor(numbers, dtype=torch.float64)


def loss_head(values: torch.Tensor) -> str:
    """The first losses of a curve for a message: ``[0.8123, 0.6012, 0.4511, 0.3402, ...]``."""
    return (
        "["
        + ", ".join(f"{v:.4g}" for v in values[:4].tolist())
        + (", ...]" if values.numel() > 4 else "]")
    )


def compare_losses(
    got: torch.Tensor,
    want: torch.Tensor,
    what: str | Text,
    *,
    per: str = "epoch",
    mistakes: Iterable[tuple[Callable[[], torch.Tensor], str, str, Sequence[str]]] = (),
    explain: Callable[[torch.Tensor, torch.Tensor], None] | None = None,
    observed: Callable[[], tuple[str, str, str] | None] | None = None,
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> None:
    """The learner's loss curve ``got`` against the reference's ``want`` (float64 tensors, from
    :func:`as_floats`), loss by loss within ``rtol``/``atol``.

    Fails with ``wrong_length`` when the counts differ (one loss per ``per``: ``"epoch"`` or
    ``"step"``). When the values differ, ``explain(got, want)`` may fail first with the
    exercise's own message; then each of ``mistakes``, ``(replay, en, zh, evidence)`` in order,
    is tried: ``replay()`` returns the losses of the same run with one classic mistake (it runs
    only when reached), or None where the learner's run lacks the mistake's other evidence (its
    parameters are not the mistake's), and a curve that matches it fails with "what: en. First
    losses: ..." and that evidence. Then ``observed()``, a cause seen in the learner's own run
    (the optimizer it stepped, :func:`optimizer_used`), may return ``(evidence, en, zh)`` to
    fail the same way. Then a curve whose first update is the expected one and that never
    changes after it is named (:func:`stops_after_first_story`). Otherwise the first differing loss
    is reported (``values_differ``).

    NaN equals NaN here: two runs that diverge the same way are the same run.
    """
    unit_en, unit_zh, at_en, at_zh = _PER[per]
    we, wz = names(what)
    if got.shape != want.shape:
        _count_off_by_one(got, want, we, wz, unit_en, rtol, atol)
        fail(
            f"{we} returned {got.numel()} losses; expected one per {unit_en} ({want.numel()}).",
            f"{wz} 返回了 {got.numel()} 个损失；应该{unit_zh}一个（{want.numel()} 个）。",
            evidence=["wrong_length"],
        )
    if torch.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
        return
    if explain is not None:
        explain(got, want)
    heads_en = f"First losses: yours {loss_head(got)}, expected {loss_head(want)}."
    heads_zh = f"前几个损失：你的 {loss_head(got)}，期望 {loss_head(want)}。"
    for replay, en, zh, evidence in mistakes:
        mistake = replay()
        if (
            mistake is not None
            and mistake.shape == got.shape
            and torch.allclose(got, mistake, rtol=rtol, atol=atol, equal_nan=True)
        ):
            fail(f"{we}: {en}. {heads_en}", f"{wz}：{zh}。{heads_zh}", evidence=list(evidence))
    story = observed() if observed is not None else None
    if story is not None:
        evidence_tag, en, zh = story
        fail(
            f"{we}: {en}. {heads_en}",
            f"{wz}：{zh}。{heads_zh}",
            evidence=["values_differ", evidence_tag],
        )
    if (
        not bool(torch.isfinite(got).all()) and bool(torch.isfinite(want).all()) and diverged(got)
    ):  # NaN or inf after losses that grew: steps too large, not a division or a sqrt
        evidence_tag, en, zh = diverged_story(got)
        fail(f"{we}: {en}", f"{wz}：{zh}", evidence=["values_differ", evidence_tag])
    stopped = stops_after_first_story(got, want, per=per, rtol=rtol, atol=atol)
    if stopped is not None:
        evidence_tag, en, zh = stopped
        fail(
            f"{we}: {en}. {heads_en}",
            f"{wz}：{zh}。{heads_zh}",
            evidence=["values_differ", evidence_tag],
        )
    index = int((~torch.isclose(got, want, rtol=rtol, atol=atol, equal_nan=True)).nonzero()[0])
    more_en, more_zh = _drift(got, want, index, at_en, at_zh)
    fail(
        f"{we}: {at_en.format(index)} is {got[index]:.6g}, expected {want[index]:.6g}. "
        f"{more_en}{heads_en}",
        f"{wz}：{at_zh.format(index)}为 {got[index]:.6g}，期望 {want[index]:.6g}。{more_zh}{heads_zh}",
        evidence=["values_differ"],
    )


def _count_off_by_one(
    got: torch.Tensor,
    want: torch.Tensor,
    we: str,
    wz: str,
    unit: str,
    rtol: float,
    atol: float,
) -> None:
    """Name a loop that ran once too few or too many times: the losses it did return are the
    expected ones, one short of the end (``range(1, n)``) or one past it (``range(n + 1)``).
    The evidence is the curve itself, so a count that differs for any other reason is only
    counted."""
    n, m = got.numel(), want.numel()
    if (
        n == m - 1
        and n >= 1
        and torch.allclose(got, want[:n], rtol=rtol, atol=atol, equal_nan=True)
    ):
        runs_en, runs_zh, loop = (
            f"{n} times, one {unit} too few",
            f"{n} 次，少了一次",
            "range(1, n)",
        )
    elif (
        n == m + 1
        and m >= 1
        and torch.allclose(got[:m], want, rtol=rtol, atol=atol, equal_nan=True)
    ):
        runs_en, runs_zh, loop = (
            f"{n} times, one {unit} too many",
            f"{n} 次，多了一次",
            "range(n + 1)",
        )
    else:
        return
    fail(
        f"{we} returned {n} losses where {m} were expected, and the ones it returned are the "
        f"expected ones: your loop ran {runs_en}. {loop} runs {'n - 1' if n < m else 'n + 1'} "
        "times; range(n) runs exactly n.",
        f"{wz} 返回了 {n} 个损失，应为 {m} 个，而返回的这些损失本身都是对的：你的循环执行了 "
        f"{runs_zh}。{loop} 执行 {'n - 1' if n < m else 'n + 1'} 次；range(n) 恰好执行 n 次。",
        evidence=["wrong_length", "loop_count_off_by_one"],
    )


def _drift(
    got: torch.Tensor,
    want: torch.Tensor,
    index: int,
    at_en: str,
    at_zh: str,
) -> tuple[str, str]:
    """How the curve goes wrong: right for the first ``index`` losses then drifting, and where
    the first NaN or inf appears (the expected curve has none there)."""
    en = zh = ""
    if index == 1:
        # Leftover gradients or an optimizer's state cannot change the first update (the model
        # arrives with no gradients, and momentum's first step is plain SGD's): the first
        # update itself differs.
        en += (
            "Your first loss matches the expected one (the model starts right), but the one "
            "after the first update does not: the first update itself differs (the learning "
            "rate, which must be the lr argument; which parameters are updated; a change to the "
            "gradients such as clipping). "
        )
        zh += (
            "你的第一个损失与期望一致（模型的起点是对的），但第一次更新之后的损失不一致：第一次更新"
            "本身就不同（学习率，必须是参数 lr；更新了哪些参数；对梯度的改动，例如裁剪）。"
        )
    elif index >= 2:
        en += (
            f"Your first {index} losses match the expected ones, then the curve drifts apart: what your loop does differently only "
            "starts to count after that (gradients left over from an earlier step, an "
            "optimizer that keeps a state such as momentum or Adam, an update that changes "
            "later on). "
        )
        zh += f"你的前 {index} 个损失与期望一致，之后曲线才逐渐偏离：你的循环中不同的地方要到那之后才起作用（之前某一步留下的梯度，带状态的优化器如动量或 Adam，或之后才改变的更新）。"
    bad = ~torch.isfinite(got) & torch.isfinite(want)
    if bool(bad.any()):
        first = int(bad.nonzero()[0])
        kind = "NaN" if bool(torch.isnan(got[first])) else "inf"
        en += f"The first {kind} appears at {at_en.format(first)}. "
        zh += f"第一个 {kind} 出现在{at_zh.format(first)}。"
    return en, zh


def stops_after_first_story(
    got: torch.Tensor,
    want: torch.Tensor,
    *,
    per: str = "epoch",
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) when the first update was the expected one and nothing
    changed after it: the first two losses are the expected ones, every later loss equals the
    second exactly (as for a model that no longer changes) and the expected curve goes on
    moving. A loop over a used-up generator (``params = model.parameters()``) does this."""
    if got.numel() < 3 or got.shape != want.shape or not bool(torch.isfinite(got).all()):
        return None
    if not (
        bool(torch.allclose(got[:2], want[:2], rtol=rtol, atol=atol))
        and bool((got[2:] == got[1]).all())
        and bool(got[1] != got[0])
        and not bool(torch.isclose(want[2], want[1], rtol=rtol, atol=atol))
    ):
        return None
    _, _, at_en, at_zh = _PER[per]
    return (
        "updates_stop_after_first",
        f"{at_en.format(1)} is the expected {got[1]:.6g}, and every later loss is that same "
        f"{got[1]:.6g}: the first update was right, then the parameters never changed again. A "
        "loop over something that can be gone through only once does this: model.parameters() "
        "returns a generator, which the first `for p in params:` uses up, so the later updates "
        "change nothing. Make a list once, params = list(model.parameters()), or let "
        "torch.optim.SGD(model.parameters(), lr=lr) do the update",
        f"{at_zh.format(1)}是期望的 {got[1]:.6g}，而之后的每个损失都还是 {got[1]:.6g}：第一次更新"
        "是对的，之后参数再也没有变过。对只能遍历一次的对象做循环就会这样：model.parameters() "
        "返回的是生成器，第一次 `for p in params:` 就把它用完了，之后的更新什么都没有改变。请只"
        "创建一次列表 params = list(model.parameters())，或者交给 "
        "torch.optim.SGD(model.parameters(), lr=lr) 来更新",
    )


# -- stories a learner's run shows by itself ---------------------------------------------------


def scaled_loss_story(
    got: float, want: float, counts: Mapping[int, tuple[str, str]], *, rtol: float = 1e-5
) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) when the first loss ``got`` is exactly n times the expected
    ``want`` for one of ``counts`` (n: its name in English and Chinese, such as the number of
    samples): the squared errors were summed where their mean was due (``nn.MSELoss(
    reduction="sum")``, ``.sum()``), which makes every gradient, and every step, n times too
    large. Only the first loss can say so: it is measured before any step, from the same
    starting weights. None otherwise (a ratio that is no count, or a loss of 0)."""
    if not (math.isfinite(got) and math.isfinite(want)) or want == 0:
        return None
    for n, (name_en, name_zh) in counts.items():
        if n > 1 and math.isclose(got, n * want, rel_tol=rtol, abs_tol=0.0):
            return (
                "scaled_by_size",
                f"the first loss, {got:.6g}, is exactly {n} times the expected {want:.6g}, and "
                f"{n} is {name_en}: the squared errors are summed, not averaged (nn.MSELoss("
                f'reduction="sum") or .sum()), so every gradient is {n} times larger and every '
                f"step goes {n} times too far, which can make the training blow up. Use the mean: "
                "nn.MSELoss() (its default reduction is the mean)",
                f"第一个损失 {got:.6g} 恰好是期望值 {want:.6g} 的 {n} 倍，而 {n} 是{name_zh}："
                '平方误差被求和而不是求平均（nn.MSELoss(reduction="sum") 或 .sum()），于是每个梯度都'
                f"大了 {n} 倍，每一步都走得太远 {n} 倍，训练可能因此发散。请用均值：nn.MSELoss()（默认的 "
                "reduction 就是均值）",
            )
    return None


def diverged(losses: torch.Tensor) -> bool:
    """The training blew up: the finite losses before the first NaN or inf (or all of them)
    grow, the last three steps each larger than the one before, and end above the first one.
    This is the evidence that a NaN in the trained parameters comes from steps that overshoot,
    not from a division by zero or a square root of a negative number."""
    bad = ~torch.isfinite(losses)
    finite = losses[: int(bad.nonzero()[0])] if bool(bad.any()) else losses
    if finite.numel() < 2:
        return False
    last = finite[-min(4, finite.numel()) :]
    return bool((last[1:] > last[:-1]).all()) and bool(finite[-1] > finite[0])


def diverged_story(losses: torch.Tensor) -> tuple[str, str, str]:
    """(evidence, English, Chinese) for parameters that ended as NaN or inf in a training
    whose losses grew first (:func:`diverged`)."""
    return (
        "training_diverged",
        f"the training diverges: your losses grow ({loss_head(losses)}) until they overflow, "
        "and the parameters end as NaN or inf. Nothing was divided by zero: every step "
        "overshoots and makes the loss larger, so the steps are too large. Compare your loss "
        "with nn.MSELoss() (a mean, not a sum) and your learning rate with lr",
        f"训练发散了：你的损失不断增大（{loss_head(losses)}）直到溢出，参数最终变成 NaN 或 inf。"
        "这里并没有除以零：每一步都走过了头、让损失变得更大，也就是步子太大了。请把你的损失与 "
        "nn.MSELoss()（均值，而不是求和）比较，把你的学习率与 lr 比较",
    )


def stale_loss_story(losses: torch.Tensor, moved: bool) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) when every loss is exactly the first although the
    parameters did move (``moved``): the loss is not computed from the updated model, most
    often because the prediction was made once, before the loop. None otherwise."""
    if not moved or losses.numel() < 2 or not bool(torch.isfinite(losses[:1]).all()):
        return None
    if not bool((losses == losses[0]).all()):
        return None
    return (
        "loss_not_recomputed",
        f"every loss is the same {losses[0]:.6g}, although the parameters do change: the loss "
        "is not computed from the updated model. The prediction model(X) was most likely made "
        "once, before the loop, and every epoch reuses it (retain_graph=True only lets "
        "backward() go through that old graph again). Compute the prediction and the loss "
        "inside the loop, every epoch",
        f"每个损失都是同一个值 {losses[0]:.6g}，可参数确实在变：损失并不是由更新后的模型算出来的。"
        "很可能预测 model(X) 只在循环之前算了一次，之后每个 epoch 都在重复使用它"
        "（retain_graph=True 只是让 backward() 能再次穿过那张旧的计算图）。请在循环里、每个 "
        "epoch 都重新计算预测和损失",
    )


def recorded_loss_story(
    got: torch.Tensor,
    want: torch.Tensor,
    trained_right: bool,
    *,
    rtol: float = 1e-4,
    atol: float = 1e-6,
) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) for a curve that differs while the training does not:
    the learner's trained parameters are the reference's (``trained_right``), so every update,
    and the loss each update used, was the expected one, and only what was recorded differs.
    The way it was recorded is named where the curve tells exactly one of them (each loss the
    mean of the losses so far, their running sum, or the loss divided by its epoch number
    1, 2, 3...); otherwise the story names no way. None where the training differs, the
    counts differ, or nothing does."""
    if not trained_right or got.shape != want.shape or got.numel() < 2:
        return None
    if not (bool(torch.isfinite(got).all()) and bool(torch.isfinite(want).all())):
        return None
    if torch.allclose(got, want, rtol=rtol, atol=atol):
        return None
    count = torch.arange(1, want.numel() + 1, dtype=want.dtype)
    ways = {
        "mean": (
            "each of your losses is the mean of all the losses so far (a running average), "
            "not that epoch's loss",
            "你的每个损失都是到目前为止所有损失的均值（滑动平均），而不是该 epoch 的损失",
            torch.cumsum(want, 0) / count,
        ),
        "sum": (
            "each of your losses is the sum of all the losses so far, not that epoch's loss",
            "你的每个损失都是到目前为止所有损失之和，而不是该 epoch 的损失",
            torch.cumsum(want, 0),
        ),
        "per_step": (
            "each of your losses is that epoch's loss divided by the epoch's number (1, 2, "
            "3, ...): nn.MSELoss() already averages over the samples, and nothing divides it "
            "again",
            "你的每个损失都是该 epoch 的损失除以 epoch 的序号（1、2、3……）：nn.MSELoss() "
            "已经对样本求了平均，不需要再除一次",
            want / count,
        ),
    }
    ways["count_off_by_one"] = (
        "each of your losses is the sum of the losses so far divided by one more than their "
        "number (a running mean whose count is off by one: the first is half the first loss)",
        "你的每个损失都是到目前为止的损失之和除以比它们的个数多一的数（计数差了一的滑动平均："
        "第一个是第一个损失的一半）",
        torch.cumsum(want, 0) / (count + 1),
    )
    ways["sum_over_count"] = (
        "each of your losses is the sum of the losses so far divided by the number of epochs "
        "(a running mean that divides by all the epochs from the start)",
        "你的每个损失都是到目前为止的损失之和除以 epoch 总数（一个从一开始就除以全部 epoch 数的"
        "滑动平均）",
        torch.cumsum(want, 0) / want.numel(),
    )
    ways["mean_of_recorded"] = (
        "each of your losses is the mean of the numbers recorded before it and that epoch's "
        "loss: the list already holds averages, so averaging it again is not the mean of the "
        "losses",
        "你的每个损失都是之前记录下的数值与该 epoch 损失的均值：列表里存的已经是平均值，再对它求"
        "平均并不是损失的均值",
        _mean_of_recorded(want),
    )
    smoothed = moving_average_fit(got, want, rtol=rtol, atol=atol)
    if smoothed is not None:
        beta, first = smoothed
        start = "avg = loss.item() at the first epoch" if first else "avg = 0 before the loop"
        start_zh = "第一个 epoch 时 avg = loss.item()" if first else "循环之前 avg = 0"
        half = (
            " ((avg + loss) / 2 is not the mean of the losses so far: it halves the weight of "
            "every older loss at each epoch)"
            if math.isclose(beta, 0.5, rel_tol=1e-3)
            else ""
        )
        half_zh = (
            "（(avg + loss) / 2 并不是到目前为止损失的均值：它每个 epoch 都把更早的损失的权重减半）"
            if half
            else ""
        )
        ways["moving_average"] = (
            f"each of your losses is an exponential moving average of the losses, avg = "
            f"{beta:.4g} * avg + {1 - beta:.4g} * loss.item() with {start}{half}: a smoothed "
            "curve, not that epoch's loss",
            f"你的每个损失都是损失的指数滑动平均 avg = {beta:.4g} * avg + {1 - beta:.4g} * "
            f"loss.item()（{start_zh}）{half_zh}：这是平滑过的曲线，而不是该 epoch 的损失",
            got,
        )
    told = [
        (en, zh)
        for en, zh, value in ways.values()
        if torch.allclose(got, value, rtol=rtol, atol=atol)
    ]
    how_en, how_zh = told[0] if len(told) == 1 else ("", "")
    return (
        "loss_recorded_wrong",
        (f"{how_en}. Your" if how_en else "your")
        + " training itself is right: the trained parameters are the expected ones, so "
        "every update, and the loss it was computed from, is too; what differs is the number "
        "you record. Append loss.item() of each epoch's loss as it is, with no average, sum "
        "or division of your own",
        (f"{how_zh}。" if how_zh else "")
        + "你的训练本身是对的：训练后的参数与期望一致，所以每一次更新以及它所依据的损失也都是对的；"
        "不同的是你记录下来的数值。请把每个 epoch 的 loss.item() 原样追加到列表中，"
        "不要自己再求平均、求和或做除法",
    )


def _mean_of_recorded(want: torch.Tensor) -> torch.Tensor:
    """r[k] = (r[0] + ... + r[k-1] + want[k]) / (k + 1): each number recorded is the mean of
    the list so far with the epoch's loss appended (the list holding earlier means)."""
    recorded: list[float] = []
    for k, loss in enumerate(want.tolist()):
        recorded.append((sum(recorded) + loss) / (k + 1))
    return torch.tensor(recorded, dtype=want.dtype)


def _moving_average(want: torch.Tensor, beta: float, first: bool) -> torch.Tensor:
    """avg = beta * avg + (1 - beta) * loss after each loss, from avg = 0 (or the first loss
    itself where ``first``)."""
    out: list[float] = []
    avg = 0.0
    for k, loss in enumerate(want.tolist()):
        avg = loss if first and k == 0 else beta * avg + (1 - beta) * loss
        out.append(avg)
    return torch.tensor(out, dtype=want.dtype)


def moving_average_fit(
    got: torch.Tensor, want: torch.Tensor, *, rtol: float = 1e-4, atol: float = 1e-6
) -> tuple[float, bool] | None:
    """(beta, first) where ``got`` is, value for value, an exponential moving average of the
    losses ``want`` (:func:`_moving_average`) with one beta in (0.001, 0.999), read from the
    first values and proven on all of at least three; None where it is not."""
    if got.shape != want.shape or got.numel() < 3:
        return None
    g, w = got.double().tolist(), want.double().tolist()
    candidates = []
    if w[0] != 0.0:
        candidates.append((1.0 - g[0] / w[0], False))  # from 0: the first is (1 - beta) * loss
    if math.isclose(g[0], w[0], rel_tol=rtol, abs_tol=atol) and w[0] != w[1]:
        candidates.append(((g[1] - w[1]) / (w[0] - w[1]), True))
    for beta, first in candidates:
        if not (math.isfinite(beta) and 0.001 < beta < 0.999):
            continue
        if torch.allclose(
            got.double(), _moving_average(want.double(), beta, first), rtol=rtol, atol=atol
        ):
            return beta, first
    return None


_SECOND_BACKWARD = re.compile(r"backward through the graph a second time", re.I)


@contextmanager
def graph_reuse_named() -> Iterator[None]:
    """A training loop raising "Trying to backward through the graph a second time": a part
    of the graph was built once, before the loop (the prediction or the loss), and the next
    epoch's backward() went through it again. Names that after PyTorch's message, in place of
    its advice to add retain_graph=True (which only hides it: the loss would never change)."""
    try:
        yield
    except LearnerRaised as exc:
        if _SECOND_BACKWARD.search(exc.text):
            sep = "" if exc.message.en.rstrip().endswith(".") else "."
            sep_zh = "" if exc.message.zh.rstrip().endswith(("。", ".")) else "。"
            exc.message = Text(
                f"{exc.message.en.rstrip()}{sep} In a training loop this means that part of "
                "the graph was built once, before the loop, and the next epoch's backward() "
                "went through it again: the prediction model(X) (or the loss) is computed "
                "outside the loop. Compute the prediction and the loss inside the loop, every "
                "epoch; retain_graph=True would only hide this (the loss would never change).",
                f"{exc.message.zh.rstrip()}{sep_zh}在训练循环中这说明计算图的一部分只在循环之前构建了一次，"
                "下一个 epoch 的 backward() 又穿过了它：预测 model(X)（或损失）是在循环之外计算的。"
                "请在循环里、每个 epoch 都重新计算预测和损失；retain_graph=True 只会掩盖这个问题"
                "（损失将永远不变）。",
            )
            exc.evidence = (*exc.evidence, "graph_reused_across_epochs")
        raise


# -- the optimizer the learner's code steps ---------------------------------------------------


def optimizer_used(
    learner: LearnerProxy, scenario: Callable[..., Any], *args: Any, lr: float
) -> tuple[str, str, str] | None:
    """:func:`optimizer_story` of the optimizers the learner's code steps while
    ``scenario(module, *args)`` runs in its process (one more run, made only to explain a
    failure); None where that run cannot be observed (a fault of the learner's: the test's
    own verdict stands, not this run's)."""
    made = _observe(learner, scenario, args)
    return None if made is None else optimizer_story(made, lr)


def own_optimizer_used(
    learner: LearnerProxy, scenario: Callable[..., Any], *args: Any
) -> tuple[str, str, str] | None:
    """:func:`own_optimizer_story` of the optimizers the learner's code steps while
    ``scenario(module, *args)`` runs in its process, for a function that is handed its
    optimizer (one more run, made only to explain a failure; None where it faults)."""
    made = _observe(learner, scenario, args)
    return None if made is None else own_optimizer_story(made)


def _observe(learner: LearnerProxy, scenario: Callable[..., Any], args: tuple) -> Any:
    try:
        return learner.run(optimizers_stepped, learner.function(scenario), *args)
    except LearnerFault:
        return None


def optimizers_stepped(module, scenario, *args):
    """A scenario (``learner.run(optimizers_stepped, learner.function(run), *args)``): runs
    ``scenario(module, *args)`` next to the learner's code and returns every ``torch.optim``
    optimizer that took a step meanwhile, as ``[module.class, {setting: value}, handed_in]``
    for each of its parameter groups: the settings as they were at the step (each a plain
    number, bool, string or None), and whether the optimizer was an argument of a call into
    the learner's module (else the learner's code made it); at most 20 different ones. An
    optimizer that was created but never stepped did not train anything and is not listed. An
    exception of the learner's ends the run early: what stepped until then is returned. Sent
    as source: it uses nothing but ``torch``."""
    seen: list = []
    handed: set = set()
    plain = (bool, int, float, str, type(None))

    def stepped(optimizer, *rest):
        kind = type(optimizer)
        for group in optimizer.param_groups:
            settings = {str(k): v for k, v in group.items() if type(v) in plain}
            entry = [f"{kind.__module__}.{kind.__qualname__}", settings, id(optimizer) in handed]
            if entry not in seen and len(seen) < 20:
                seen.append(entry)

    class Calls:
        """The learner's module, noting every optimizer handed to one of its functions."""

        def __getattr__(self, name):
            found = getattr(module, name)
            if not callable(found):
                return found

            def call(*positional, **named):
                for value in (*positional, *named.values()):
                    if isinstance(value, torch.optim.Optimizer):
                        handed.add(id(value))
                return found(*positional, **named)

            return call

    # imported by name: torch.optim does not always keep its submodules as attributes
    from torch.optim.optimizer import register_optimizer_step_pre_hook

    handle = register_optimizer_step_pre_hook(stepped)
    try:
        scenario(Calls(), *args)
    except Exception:  # noqa: BLE001 - the tests judge the run itself; this only observes
        pass
    finally:
        handle.remove()
    return seen


def _read_stepped(made: Any) -> list[tuple[str, dict[str, Any], bool]] | None:
    """What :func:`optimizers_stepped` returned, read strictly: it comes from the learner's
    process, so anything malformed tells nothing (None)."""
    if not isinstance(made, list):
        return None
    seen = []
    for entry in made:
        if not (
            isinstance(entry, list)
            and len(entry) == 3
            and isinstance(entry[0], str)
            and isinstance(entry[1], dict)
            and isinstance(entry[2], bool)
        ):
            return None
        seen.append((entry[0], entry[1], entry[2]))
    return seen


def own_optimizer_story(made: Any) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) when the learner's function, handed an optimizer, steps
    one its own code made: the caller's choice of optimizer and settings is lost (and, when
    the one handed in steps too, every step is taken twice). None when only optimizers handed
    in stepped, or nothing can be read."""
    seen = _read_stepped(made)
    if not seen:
        return None
    own = [(name, settings) for name, settings, handed in seen if not handed]
    if not own:
        return None
    name, settings = own[0]
    module, _, cls = name.rpartition(".")
    shown = f"torch.optim.{cls}" if module.startswith("torch.optim") else cls
    rate = _number(settings.get("lr"))
    if isinstance(rate, float):
        shown += f"(lr={rate!r})"
    both = any(handed for _, _, handed in seen)
    also_en = " as well as the one passed in, so every step is taken twice" if both else ""
    also_zh = "，同时也更新了传入的优化器，于是每一步都走了两次" if both else ""
    return (
        "own_optimizer",
        f"your code steps an optimizer it creates itself, {shown}{also_en}: the optimizer "
        "passed in (and the settings the caller chose for it) is the one to use. Call "
        "optimizer.step() and optimizer.zero_grad() on the optimizer argument, and create none",
        f"你的代码更新的是它自己创建的优化器 {shown}{also_zh}：应该使用的是传入的优化器（以及调用者为它"
        "选择的设置）。请对参数 optimizer 调用 optimizer.step() 和 optimizer.zero_grad()，不要自己创建",
    )


# SGD's settings besides lr that change its steps, and their values in plain gradient descent
_PLAIN_SGD = {
    "momentum": 0,
    "dampening": 0,
    "weight_decay": 0,
    "nesterov": False,
    "maximize": False,
}
_SETTING_WHY = {
    "momentum": (
        "momentum carries part of each step into the next",
        "动量会把每一步的一部分带到下一步",
    ),
    "dampening": ("dampening scales the momentum", "dampening 会缩放动量"),
    "weight_decay": (
        "weight_decay adds a pull toward zero to every gradient",
        "weight_decay 会给每个梯度加上一个把参数拉向 0 的项",
    ),
    "nesterov": ("nesterov looks ahead along the momentum", "nesterov 会沿着动量方向向前看"),
    "maximize": (
        "maximize=True climbs the loss instead of descending it",
        "maximize=True 会让损失上升而不是下降",
    ),
}


def optimizer_story(made: Any, lr: float) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) saying how the optimizers ``optimizers_stepped`` saw differ
    from the plain ``torch.optim.SGD(model.parameters(), lr=lr)`` asked for, or None when
    they do not (or when nothing about them can be read: the list comes from the learner's
    process, so anything malformed tells nothing). Only torch's own optimizers are named: a
    class of the learner's own may do anything in its step."""
    stepped = _read_stepped(made)
    if stepped is None:
        return None
    seen = [(name, settings) for name, settings, _ in stepped]
    for name, _ in seen:
        module, _, cls = name.rpartition(".")
        if module.startswith("torch.optim") and cls != "SGD":
            return (
                "optimizer_not_plain_sgd",
                f"the model is trained with torch.optim.{cls}, whose steps are not those of "
                "the plain gradient descent asked for. Use torch.optim.SGD(model.parameters(), "
                "lr=lr)",
                f"模型是用 torch.optim.{cls} 训练的，它的更新步骤不是题目要求的普通梯度下降。请使用 "
                "torch.optim.SGD(model.parameters(), lr=lr)",
            )
    sgd = [settings for name, settings in seen if name == "torch.optim.sgd.SGD"]
    # a setting that changes the steps first (whichever group holds it), then the lr
    for settings in sgd:
        changed = [
            key
            for key, plain in _PLAIN_SGD.items()
            if key in settings
            and _number(settings[key]) != plain
            and not (key == "dampening" and _number(settings.get("momentum")) == 0)
        ]
        if changed:
            shown = ", ".join(f"{key}={settings[key]!r}" for key in changed)
            why_en = "; ".join(_SETTING_WHY[key][0] for key in changed)
            why_zh = "；".join(_SETTING_WHY[key][1] for key in changed)
            return (
                "optimizer_not_plain_sgd",
                f"the model is trained with torch.optim.SGD(..., {shown}): {why_en}, which is "
                "not the plain gradient descent asked for. Use torch.optim.SGD("
                "model.parameters(), lr=lr) with nothing else",
                f"模型是用 torch.optim.SGD(..., {shown}) 训练的：{why_zh}，这不是题目要求的普通"
                "梯度下降。请只用 torch.optim.SGD(model.parameters(), lr=lr)",
            )
    # "a fixed number" holds only where every SGD step used one and the same other lr: an lr
    # that changes during training (a scheduler) or meets the asked one at some step is not it
    rates = {_number(settings.get("lr")) for settings in sgd}
    if len(rates) == 1:
        (given,) = rates
        if isinstance(given, float) and not math.isclose(given, lr, rel_tol=1e-9, abs_tol=0.0):
            return (
                "lr_not_used",
                f"torch.optim.SGD steps with lr={given!r}, but the function was called with "
                f"lr={lr!r}: a fixed number stands where the lr argument belongs. Pass the "
                "argument on: torch.optim.SGD(model.parameters(), lr=lr)",
                f"torch.optim.SGD 更新时用的是 lr={given!r}，但函数被调用时传入的是 "
                f"lr={lr!r}：本该使用参数 lr 的地方写了一个固定的数。请把参数传下去："
                "torch.optim.SGD(model.parameters(), lr=lr)",
            )
    return None


def _number(value: Any) -> Any:
    """A setting as a float where it is a number (not a bool), else as it came."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    return value


# -- weights overwritten between a step and the next forward pass ------------------------------


def overwritten_used(
    learner: LearnerProxy, scenario: Callable[..., Any], *args: Any
) -> tuple[str, str, str] | None:
    """:func:`overwritten_story` of the learner's code while ``scenario(module, *args)`` runs in
    its process (one more run, made only to explain a failure); None where that run cannot be
    observed (a fault of the learner's: the test's own verdict stands, not this run's)."""
    try:
        counts = learner.run(weights_overwritten, learner.function(scenario), *args)
    except LearnerFault:
        return None
    return overwritten_story(counts)


def weights_overwritten(module, scenario, *args):
    """A scenario (``learner.run(weights_overwritten, learner.function(run), *args)``): runs
    ``scenario(module, *args)`` next to the learner's code and returns ``[overwritten,
    checked]``: of the ``checked`` steps from one backward pass to the next (made on the same
    parameters), the ``overwritten`` ones whose weights did not carry on from where the
    backward pass left them (``reset_parameters()``, ``nn.init.*``, ``load_state_dict``, an
    assignment to ``.data``: what the step learned thrown away).

    The evidence is what the weights do, whatever the loop looks like (an optimizer or an
    update by hand, the module called or its formula written out): the training runs once as
    it is, and once more per step with a small mark added to every parameter right after that
    step's backward pass. An update, however it is made (SGD, momentum, Adam, a second update
    of the learner's own, weight decay), carries the mark on to the next backward pass; a
    reset loses it in every element of the parameters it resets. A clamp keeps it where it
    clamps nothing (parameters that lost it all at one bound, +-c, are counted only where two
    probes, moving them far up and far down, come back at the same values: a clamp sends them
    to opposite bounds, a reset to a constant does not; a reset to zeros is counted). Runs
    that draw otherwise before the mark (an unseeded start) are not counted. An exception of
    the learner's ends a run early: what was seen until then counts. Sent as source: it uses
    nothing but ``torch``."""
    import torch

    runs_at_most, backward_at_most, nodes_at_most, elements_at_most = 8, 64, 10_000, 1_000_000

    def leaves(roots):
        found, todo = [], [t.grad_fn for t in roots if isinstance(t, torch.Tensor)]
        seen: set = set()
        while todo and len(seen) < nodes_at_most:
            node = todo.pop()
            if node is None or id(node) in seen:
                continue
            seen.add(id(node))
            variable = getattr(node, "variable", None)
            if isinstance(variable, torch.Tensor):
                found.append(variable)
            todo.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
        return found

    def mark(value):
        return (value.abs() + 1) * 2**-10

    def observe(marked, shift=None):
        """Per backward pass: [(parameter, its values)] of the leaves it reaches. ``shift``:
        the mark is ``shift * (|value| + 1)`` instead of the small one (a probe far off)."""
        passes: list = []
        size = [0]
        backward, grad = torch.autograd.backward, torch.autograd.grad

        def record(tensors):
            roots = list(tensors) if isinstance(tensors, (list, tuple)) else [tensors]
            now = []
            for p in leaves(roots):
                if p.is_floating_point() and size[0] + p.numel() <= elements_at_most:
                    size[0] += p.numel()
                    now.append((p, p.detach().clone()))
            if len(passes) < backward_at_most:
                passes.append(now)

        def after():
            if len(passes) == marked:
                with torch.no_grad():
                    for p, value in passes[-1]:
                        moved = mark(value) if shift is None else (value.abs() + 1) * shift
                        p.data.add_(moved)  # .data: the graph's version counter untouched

        def observed(original):
            def call(tensors, *rest, **kwargs):
                record(tensors)
                value = original(tensors, *rest, **kwargs)
                after()
                return value

            return call

        torch.autograd.backward, torch.autograd.grad = observed(backward), observed(grad)
        state = torch.get_rng_state()
        try:
            scenario(module, *args)
        except Exception:  # noqa: BLE001 - the tests judge the run itself; this only observes
            pass
        finally:
            torch.autograd.backward, torch.autograd.grad = backward, grad
            torch.set_rng_state(state)
        return passes

    def same(one, other):
        return len(one) == len(other) and all(
            a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)
            for (_, a), (_, b) in zip(one, other, strict=True)
        )

    def constant(k, plain, which):
        """Whether pass k's parameters ``which`` (positions) are the plain run's again after
        probes that moved every parameter far up and far down (1000 times its size): a clamp
        sends them to opposite bounds, a reset to a constant gives the same values both times."""
        for shift in (1000.0, -1000.0):
            run = observe(k, shift)
            if len(run) <= k or len(run[k]) != len(plain):
                return False
            for i in which:
                (_, a), (_, b) = run[k][i], plain[i]
                if not (a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)):
                    return False
        return True

    counts = [0, 0]
    base = observe(0)
    for k in range(1, min(len(base), runs_at_most + 1)):
        run = observe(k)
        if len(run) <= k or not all(same(base[i], run[i]) for i in range(k)):
            continue
        kept = [id(p) for p, _ in run[k - 1]]
        if not run[k] or [id(p) for p, _ in run[k]] != kept or len(base[k]) != len(run[k]):
            continue  # other parameters (a model made anew): not this story
        if any(a.shape != b.shape for (_, a), (_, b) in zip(base[k], run[k], strict=True)):
            continue
        counts[1] += 1
        lost, which = [], []  # the parameters that lost the mark in every element
        for i, ((_, marked_from), (_, plain), (_, now)) in enumerate(
            zip(run[k - 1], base[k], run[k], strict=True)
        ):
            moved = (now.double() - plain.double()).abs()
            if now.numel() and bool((moved <= mark(marked_from).double() * 1e-3).all()):
                lost.append(now.double().abs().reshape(-1))
                which.append(i)
        size = torch.cat(lost) if lost else torch.zeros(0)
        one_bound = bool(size.numel() and size[0] > 0 and (size == size[0]).all())
        if one_bound and constant(k, base[k], which):
            one_bound = False  # a constant whatever the values: a reset, not a clamp
        if lost and not one_bound:
            counts[0] += 1
    return counts


def overwritten_story(counts: Any) -> tuple[str, str, str] | None:
    """(evidence, English, Chinese) where :func:`weights_overwritten` saw the weights changed
    between an optimizer's step and the next forward pass, the loop throwing away what the
    step learned; None where it did not, or where nothing can be read (the counts come from
    the learner's process)."""
    if not (
        isinstance(counts, list)
        and len(counts) == 2
        and all(type(c) is int for c in counts)
        and 0 < counts[0] <= counts[1]
    ):
        return None
    overwritten, checked = counts
    return (
        "weights_reset_in_loop",
        f"the weights are overwritten inside the training loop: in {overwritten} of the "
        f"{checked} steps from one backward pass to the next, the weights did not carry on from "
        "the values the step started from (model.reset_parameters(), nn.init.* or an assignment "
        "to the weights between one step and the next forward pass), so every step's learning is "
        "thrown away. Initialise the model once, before the loop; inside the loop only "
        "zero_grad, forward and loss, backward, step",
        f"权重在训练循环里被覆盖了：在从一次反向传播到下一次的 {checked} 步中，有 {overwritten} "
        "步的权重没有从这一步开始时的值继续下去（在一步更新和下一次前向计算之间调用了 "
        "model.reset_parameters()、nn.init.* 或给权重重新赋值），所以每一步学到的东西都被丢掉了。"
        "请只在循环之前初始化一次模型；循环里只做 zero_grad、前向并计算损失、backward、step",
    )
