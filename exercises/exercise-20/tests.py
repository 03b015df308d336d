"""Hidden tests of exercise-20: exploding gradients, clipping and NaN checks.

Pitfalls from the seeds (000 §8.4: "loss becomes NaN or inf", print the gradient norms, clip with
torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)): clipping must sit between
backward() (the gradients exist) and step() (which uses them), so clipping after step() changes
nothing; clip_grad_norm_ rescales all gradients together by their total norm, which is not
clip_grad_value_ (element by element) nor clipping each parameter on its own; clipping only ever
shrinks, it never scales small gradients up; stale gradients must be zeroed first (000 §7.3); a
NaN check must also catch inf (torch.isfinite), must return a Python bool rather than a tensor,
and must not crash on parameters whose .grad is None (frozen or unused, 003 §5.1).

Models and optimizers cannot cross into the learner's process, so both functions run in
scenarios that build them from a seed. When parameters differ from the reference's, the step is
replayed here with each classic mistake to name it, and then the optimizers the learner's step
used are watched in one more run (``own_optimizer_used``): one its own code made is named.

Each test judges one requirement (see `requirements` in exercise.yaml). The clipping tests clear
the gradients between the learner's calls themselves (``clear_between``), so that a missing
zero_grad costs only the zeroing requirement, which test_zeroes_stale_gradients judges by
comparing the learner's steps with stale gradients against the same learner's steps without
them; views are judged by comparing the learner on views with the same learner on contiguous
copies; what has_bad_grad does to the gradients is judged by test_has_bad_grad_leaves_gradients
alone, and test_has_bad_grad_anywhere asks only that a value the learner's check finds in one
place is found in any other.
"""

import ast
import math

import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from torch import nn

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import as_floats, assert_close, describe, fail, names, own_optimizer_used
from grader.testing.checks import assert_unchanged, describe_zh
from grader.testing.properties import PROPERTY

# -- scenarios: run next to the learner's code ------------------------------------------------


def step_run(
    module, kind, X, y, lr, max_norm, steps, stale, seed, clear_between=False, views=False
):
    """``steps`` calls of train_step on a seeded model and SGD optimizer. ``clear_between``: the
    gradients are zeroed here before every call (the clipping is then judged whatever the
    learner's zeroing). ``views``: X and y are replaced by views holding the same values."""
    torch.manual_seed(seed)
    d = X.shape[1]
    if kind == "mlp":
        model = nn.Sequential(nn.Linear(d, 8), nn.Tanh(), nn.Linear(8, 1))
    else:
        model = nn.Linear(d, 1)
    model = model.to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    if stale:  # gradients left in .grad by an earlier, unrelated backward()
        model(X).sum().backward()
    if views:  # a transposed view and a strided view of the same values
        X = X.t().contiguous().t()
        y = torch.cat([y, torch.zeros_like(y)], dim=1)[:, :1]
    losses, before, norms = [], [], []
    for _ in range(steps):
        if clear_between:
            optimizer.zero_grad()
        with torch.no_grad():  # the loss of the model as train_step receives it
            before.append(nn.functional.mse_loss(model(X), y).item())
        # the total norm of that loss's gradient, before any clipping (what clip_grad_norm_
        # returns), read without touching .grad
        with torch.enable_grad():
            params = [p for p in model.parameters() if p.requires_grad]
            grads = torch.autograd.grad(nn.functional.mse_loss(model(X), y), params)
        norms.append(float(torch.sqrt(sum((g.double() ** 2).sum() for g in grads))))
        losses.append(module.train_step(model, X, y, optimizer, max_norm))
    return {
        "losses": losses,
        "before": before,
        "norms": norms,
        "params": [p.detach().clone() for p in model.parameters()],
        "X": X,
        "y": y,
    }


def bad_grad_run(module, case, device, seed):
    """has_bad_grad(model) for a model whose gradients are in the state ``case`` names."""
    torch.manual_seed(seed)

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2))
            self.head = nn.Linear(2, 2)

        def forward(self, x, use_head=True):
            out = self.body(x)
            return self.head(out) if use_head else out

    model = Net().to(device)
    X = torch.randn(5, 4).to(device)
    if case.startswith("frozen"):
        model.body[0].weight.requires_grad_(False)
    if case != "fresh":
        model(X, use_head=case != "unused_head").pow(2).sum().backward()
    with torch.no_grad():
        if case == "nan":
            model.body[0].bias.grad[2] = float("nan")
        elif case == "inf":
            model.body[2].weight.grad[1, 3] = float("inf")
        elif case == "-inf":
            model.head.bias.grad[0] = float("-inf")
        elif case == "huge":
            for p in model.parameters():
                p.grad.mul_(1e25)
        elif case == "near_max":  # finite, but a sum of three of them is inf
            for p in model.parameters():
                p.grad.fill_(torch.finfo(p.grad.dtype).max / 2)
        elif case == "near_max_one":  # one such value per gradient: its sum stays finite
            for p in model.parameters():
                p.grad.view(-1)[0] = torch.finfo(p.grad.dtype).max / 2
        elif case == "frozen_nan":
            model.body[2].bias.grad[1] = float("nan")
        elif case.startswith("whole"):  # "whole:<parameter>:<value>": every value of one
            _, which, value = case.split(":")
            list(model.parameters())[int(which)].grad.fill_(float(value))
        elif case.startswith("poison"):  # "poison:<parameter>:<flat index>:<value>"
            _, which, index, value = case.split(":")
            grad = list(model.parameters())[int(which)].grad
            grad.view(-1)[int(index) % grad.numel()] = float(value)
    before = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
    result = module.has_bad_grad(model)
    after = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
    changed = any(
        (a is None) != (b is None)
        or (a is not None and not torch.allclose(a, b, rtol=0, atol=0, equal_nan=True))
        for a, b in zip(after, before)
    )
    return {"result": result, "grads_changed": changed}


def clip_watch(module, scenario, *args):
    """Runs ``scenario(module, *args)`` next to the learner's code and returns the order of what
    its steps did: ``["backward"]`` for each Tensor.backward(), ``["step"]`` for each optimizer
    step, and ``["clip", given, with_grad, generator, limit]`` for each call of clip_grad_norm_ or
    clip_grad_value_ (how many tensors it was given, how many of those had a gradient, whether
    they came as a generator); at most 200 events. Everything is put back afterwards. An
    exception of the learner's ends the run early: the events until then are returned. Sent as
    source: it uses nothing but torch."""
    import inspect

    from torch.optim.optimizer import register_optimizer_step_pre_hook

    events = []
    utils, clip_module = torch.nn.utils, torch.nn.utils.clip_grad
    originals = {name: getattr(utils, name) for name in ("clip_grad_norm_", "clip_grad_value_")}

    def note(event):
        if len(events) < 200:
            events.append(event)

    def watched(original, norm):
        def clip(parameters, *rest, **named):
            generator = inspect.isgenerator(parameters)
            given = [parameters] if isinstance(parameters, torch.Tensor) else list(parameters)
            # the max_norm of a clip_grad_norm_ call, as a number (None: clip_grad_value_, or
            # a value that is not a plain number)
            limit = rest[0] if rest else named.get("max_norm")
            if not norm or isinstance(limit, bool) or not isinstance(limit, (int, float)):
                limit = None
            limit = None if limit is None else float(limit)
            note(["clip", len(given), sum(p.grad is not None for p in given), generator, limit])
            return original(given, *rest, **named)

        return clip

    patched = []  # (owner, name, original)
    for name, original in originals.items():
        for owner in (utils, clip_module, module):
            if getattr(owner, name, None) is original:
                patched.append((owner, name, original))
        for owner_name in dir(module):
            if owner_name != name and getattr(module, owner_name, None) is original:
                patched.append((module, owner_name, original))
    backward = torch.Tensor.backward

    def watched_backward(self, *rest, **named):
        note(["backward"])
        return backward(self, *rest, **named)

    handle = register_optimizer_step_pre_hook(lambda *_: note(["step"]))
    try:
        for owner, name, original in patched:
            setattr(owner, name, watched(original, original is originals["clip_grad_norm_"]))
        torch.Tensor.backward = watched_backward
        scenario(module, *args)
    except Exception:  # noqa: BLE001 - the tests judge the run itself; this only observes
        pass
    finally:
        torch.Tensor.backward = backward
        for owner, name, original in patched:
            setattr(owner, name, original)
        handle.remove()
    return events


# -- replaying the classic mistakes ---------------------------------------------------------------


class _Mistake:
    """train_step with one classic mistake, to recognise it in a learner's parameters."""

    def __init__(self, kind):
        self.kind = kind

    def train_step(self, model, X, y, optimizer, max_norm):
        params = [p for p in model.parameters()]
        if self.kind not in ("never_zero", "zero_after_step"):
            optimizer.zero_grad()
        reduction = "sum" if self.kind == "sum_loss" else "mean"
        loss = nn.functional.mse_loss(model(X), y, reduction=reduction)
        if self.kind == "loss_scaled" and loss.detach() > max_norm:
            loss = loss * (max_norm / loss.detach())  # the loss brought down to max_norm
        loss.backward()
        if self.kind == "loss_scaled":
            pass  # the loss limited in place of the gradients: no clipping
        elif self.kind == "value":
            torch.nn.utils.clip_grad_value_(params, max_norm)
        elif self.kind == "per_parameter":
            for p in params:
                torch.nn.utils.clip_grad_norm_([p], max_norm)
        elif self.kind in ("l1_norm", "inf_norm"):
            norm_type = 1.0 if self.kind == "l1_norm" else float("inf")
            torch.nn.utils.clip_grad_norm_(params, max_norm, norm_type=norm_type)
        elif self.kind == "sum_of_norms":
            total = sum(p.grad.norm() for p in params)
            if total > max_norm:
                for p in params:
                    p.grad.mul_(max_norm / total)
        elif self.kind == "normalize":
            total = torch.sqrt(sum((p.grad.double() ** 2).sum() for p in params))
            for p in params:
                p.grad.mul_(max_norm / float(total))
        elif self.kind != "no_clip":
            torch.nn.utils.clip_grad_norm_(params, max_norm)
        optimizer.step()
        if self.kind == "zero_after_step":
            optimizer.zero_grad()
        return loss.item()


STORIES = {
    "no_clip": (
        "clip_has_no_effect",
        "the parameters moved exactly as without any clipping: clip_grad_norm_ must run after "
        "backward() and before optimizer.step() (clipping after step(), or before backward(), "
        "changes nothing)",
        "参数的变化与完全不裁剪时一模一样：clip_grad_norm_ 必须在 backward() 之后、"
        "optimizer.step() 之前执行（在 step() 之后或 backward() 之前裁剪都不起任何作用）",
    ),
    "value": (
        "clipped_by_value",
        "the gradients were clipped element by element (clip_grad_value_), not by their total "
        "norm: use torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)",
        "梯度是逐元素裁剪的（clip_grad_value_），而不是按总范数裁剪：请使用 "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)",
    ),
    "per_parameter": (
        "clipped_per_parameter",
        "each parameter's gradient was clipped to max_norm on its own; the total norm of all "
        "the gradients together must be at most max_norm (pass all the parameters to one "
        "clip_grad_norm_ call)",
        "每个参数的梯度被单独裁剪到了 max_norm；要求的是所有梯度合在一起的总范数不超过 max_norm"
        "（把所有参数传给同一次 clip_grad_norm_ 调用）",
    ),
    "l1_norm": (
        "clipped_other_norm",
        "the gradients were clipped by their L1 norm, the sum of the absolute values "
        "(norm_type=1), not by the usual Euclidean norm, the square root of the sum of squares: "
        "leave norm_type at its default, clip_grad_norm_(model.parameters(), max_norm)",
        "梯度是按 L1 范数（绝对值之和，norm_type=1）裁剪的，而不是按通常的欧几里得范数（平方和的"
        "平方根）：请保留 norm_type 的默认值，clip_grad_norm_(model.parameters(), max_norm)",
    ),
    "inf_norm": (
        "clipped_other_norm",
        "the gradients were clipped by their largest absolute value (norm_type=inf), not by the "
        "usual Euclidean norm, the square root of the sum of squares: leave norm_type at its "
        "default, clip_grad_norm_(model.parameters(), max_norm)",
        "梯度是按最大绝对值（norm_type=inf）裁剪的，而不是按通常的欧几里得范数（平方和的平方根）："
        "请保留 norm_type 的默认值，clip_grad_norm_(model.parameters(), max_norm)",
    ),
    "sum_of_norms": (
        "clipped_other_norm",
        "the gradients were scaled by max_norm over the sum of each parameter's norm; the total "
        "norm is the square root of the sum of their squares, sqrt(sum(p.grad.norm() ** 2)), "
        "which torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm) computes",
        "梯度是按 max_norm 除以各参数范数之和来缩放的；总范数是它们平方和的平方根 "
        "sqrt(sum(p.grad.norm() ** 2))，torch.nn.utils.clip_grad_norm_(model.parameters(), "
        "max_norm) 算的就是它",
    ),
    "normalize": (
        "clip_scales_up",
        "the gradients were rescaled to a norm of exactly max_norm even though theirs was "
        "smaller: clipping only ever shrinks gradients whose total norm exceeds max_norm",
        "梯度被缩放到了范数恰好为 max_norm，尽管它们原本的范数更小：裁剪只会缩小总范数超过 "
        "max_norm 的梯度，从不放大",
    ),
    "never_zero": (
        "gradients_accumulate",
        "the gradients left in .grad before the call were added to this step's: zero them "
        "first (zero_grad, backward, clip, step)",
        "调用之前留在 .grad 中的梯度被加到了这一步的梯度上：请先清零（zero_grad、backward、"
        "裁剪、step）",
    ),
    "zero_after_step": (
        "gradients_accumulate",
        "the gradients left in .grad before the call were added to the first step's: zero "
        "them at the start of the step, before backward() (zero_grad, backward, clip, step)",
        "调用之前留在 .grad 中的梯度被加到了第一步的梯度上：请在每一步开始、backward() 之前清零"
        "（zero_grad、backward、裁剪、step）",
    ),
    # the sum of the squared errors: gradients n times the mean's, clipped correctly (with
    # small gradients, the same steps as "normalize": told apart by the clipping calls seen)
    "sum_loss": (
        "scaled_by_size",
        "the loss is the sum of the squared errors, not their mean (nn.MSELoss(reduction='sum'), "
        "or .sum()): every gradient is n times larger, so clip_grad_norm_ cuts gradients whose "
        "norm, for the mean squared error, is below max_norm. Use nn.MSELoss(), the mean",
        "损失是平方误差之和，而不是它们的均值（nn.MSELoss(reduction='sum') 或 .sum()）：每个梯度都"
        "大了 n 倍，于是 clip_grad_norm_ 会裁剪那些按均方误差计算时范数低于 max_norm 的梯度。请使用 "
        "nn.MSELoss()，即均值",
    ),
    # the loss scaled down to max_norm (by a factor detached from the graph) before backward(),
    # and no clipping: every gradient is scaled by max_norm / loss, not to a total norm
    "loss_scaled": (
        "loss_limited_not_gradients",
        "the parameters moved exactly as when the loss itself is scaled down to max_norm "
        "before backward() and the gradients are not clipped: max_norm bounds the total norm "
        "of the gradients, not the loss. Leave the loss as it is; after loss.backward(), call "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm), then optimizer.step()",
        "参数的变化与“在 backward() 之前把损失本身缩小到 max_norm、且不裁剪梯度”时一模一样："
        "max_norm 限制的是梯度的总范数，而不是损失。请让损失保持原样；在 loss.backward() 之后调用 "
        "torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)，再 optimizer.step()",
    ),
}


# -- helpers ----------------------------------------------------------------------------------------


def _data(rng, n, d, scale):
    """Targets of size ``scale``: 10 gives gradient norms around 30, 0.5 around 1."""
    X = torch.randn(n, d, generator=rng)
    y = scale * (X @ torch.randn(d, generator=rng)) + scale / 2
    return X, y.unsqueeze(1)


def _what(kind, lr, max_norm, steps, note=""):
    model = "Linear-Tanh-Linear" if kind == "mlp" else "nn.Linear(d, 1)"
    times = f" × {steps}" if steps > 1 else ""
    return (
        f"train_step(model, X, y, optimizer, max_norm={max_norm}){times} "
        f"[model = {model}, optimizer = SGD(lr={lr}){note}]"
    )


def _curve(values):
    """Losses for the report's chart; anything that is not a number is left out."""
    out = []
    for value in values if isinstance(values, (list, tuple)) else ():
        try:
            out.append(
                float(value.detach().cpu().reshape(()))
                if isinstance(value, torch.Tensor)
                else float(value)
            )
        except (TypeError, ValueError, RuntimeError):
            return []
    return out


def _start(args):
    """The parameters of the seeded model of ``step_run(module, *args)`` before any step."""
    return step_run(None, *args[:5], 0, *args[6:])["params"]


def _defined(source, name):
    """The top-level or nested ``def name`` nodes of the learner's source (none where it does
    not parse: the tests that import it say why)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
    return [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]


def _zeroed_before_step(source):
    """(line, code) of a statement of train_step that clears the gradients (``zero_grad()``, or
    ``.grad = None``) after its backward() and before its ``.step()``, or None."""
    lines = source.splitlines()
    for func in _defined(source, "train_step"):
        after_backward, cleared = False, None
        for stmt in sorted(
            (n for n in ast.walk(func) if isinstance(n, ast.stmt) and n is not func),
            key=lambda n: n.lineno,
        ):
            if isinstance(stmt, (ast.For, ast.While, ast.If, ast.With, ast.Try)):
                continue
            calls = {
                n.func.attr
                for n in ast.walk(stmt)
                if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
            }
            clears = "zero_grad" in calls or (
                isinstance(stmt, ast.Assign)
                and any(isinstance(t, ast.Attribute) and t.attr == "grad" for t in stmt.targets)
            )
            if "backward" in calls:
                after_backward, cleared = True, None
            elif clears and after_backward and cleared is None:
                cleared = stmt
            elif "step" in calls and cleared is not None:
                return cleared.lineno, lines[cleared.lineno - 1].strip()
    return None


def _never_moved(got, args, what, source):
    """Fails with ``parameters_never_move`` when the learner's steps left every parameter
    exactly where the seeded model started (the reference's steps move them)."""
    start = _start(args)
    if len(start) != len(got["params"]) or not all(
        a.shape == b.shape and torch.equal(a.detach().cpu(), b.detach().cpu())
        for a, b in zip(got["params"], start)
    ):
        return
    steps = args[5]
    en = (
        f"{what}: the parameters never moved: after {steps} calls they are exactly the "
        "model's starting parameters."
    )
    zh = f"{what}：参数从未移动：调用 {steps} 次之后，它们与模型的初始参数完全相同。"
    found = _zeroed_before_step(source)
    if found is not None:
        line, code = found
        en += (
            f" Line {line}, `{code}`, clears the gradients after backward() and before "
            "optimizer.step(), so step() finds none to use. Zero them at the start of the step: "
            "zero_grad, forward and loss, backward, clip, step."
        )
        zh += (
            f"第 {line} 行的 `{code}` 在 backward() 之后、optimizer.step() 之前清掉了梯度，所以 "
            "step() 找不到可用的梯度。请在这一步开始时清零：zero_grad、前向并计算损失、backward、"
            "裁剪、step。"
        )
    else:
        en += (
            " optimizer.step() must run after backward(), with the gradients still in .grad: "
            "zero_grad, forward and loss, backward, clip, step."
        )
        zh += (
            "optimizer.step() 必须在 backward() 之后、梯度仍在 .grad 中时执行：zero_grad、"
            "前向并计算损失、backward、裁剪、step。"
        )
    fail(en, zh, evidence=["values_differ", "parameters_never_move"])


def _clips_seen(learner, args):
    """What :func:`clip_watch` saw of the learner's steps, read strictly (it comes from the
    learner's process); None where that run cannot be observed."""
    try:
        events = learner.run(clip_watch, learner.function(step_run), *args)
    except LearnerFault:
        return None
    if not isinstance(events, list):
        return None
    for event in events:
        ok = isinstance(event, list) and (
            event in (["backward"], ["step"])
            or (
                len(event) == 5
                and event[0] == "clip"
                and all(type(v) is int for v in event[1:3])
                and isinstance(event[3], bool)
                and (event[4] is None or (type(event[4]) is float and math.isfinite(event[4])))
            )
        )
        if not ok:
            return None
    return events


def _clip_story(events):
    """(evidence, English, Chinese) of why clipping changed nothing, from the events of
    :func:`clip_watch`; None where they do not show it (no clipping call at all, a run that
    could not be observed, or a call that did clip between backward() and step())."""
    if not events:
        return None
    between, outside = [], []
    last = None
    for event in events:
        if event[0] in ("backward", "step"):
            last = event[0]
        elif last == "backward":
            between.append(event)
        else:
            outside.append(event)
    if any(given > 0 for _, given, _, _, _ in between):
        return None  # it clipped where it should: something else made no difference
    if between:
        if all(generator for _, _, _, generator, _ in between):
            return (
                "clip_given_used_generator",
                "clip_grad_norm_ runs between backward() and step(), but it was given no "
                "parameters at all: what you passed it is a generator (model.parameters()) "
                "that your code had already gone through (a loop, sum(), list()), and a "
                "generator can be gone through only once, so nothing was clipped (PyTorch "
                'warns "`parameters` is an empty generator"). Call model.parameters() again '
                "for the clipping, or keep a list: params = list(model.parameters())",
                "clip_grad_norm_ 位于 backward() 与 step() 之间，但它根本没有拿到参数：你传给它的是一个"
                "生成器（model.parameters()），而你的代码之前已经把它遍历完了（一个循环、sum()、"
                "list()），生成器只能遍历一次，"
                '所以什么也没有裁剪（PyTorch 会警告 "`parameters` is an empty generator"）。'
                "请在裁剪时重新调用 model.parameters()，或者保存一个列表：params = list(model.parameters())",
            )
        return (
            "clip_given_nothing",
            "clip_grad_norm_ runs between backward() and step(), but it was given no "
            "parameters, so nothing was clipped: pass it model.parameters()",
            "clip_grad_norm_ 位于 backward() 与 step() 之间，但它没有拿到任何参数，所以什么也没有"
            "裁剪：请把 model.parameters() 传给它",
        )
    if outside:  # every clipping call ran before backward() or after step()
        return STORIES["no_clip"]
    return None


def _library_clip_between(events):
    """Whether the learner's steps (:func:`clip_watch`'s events) called clip_grad_norm_ with
    parameters that have gradients, between backward() and step(): clipping that never scales
    gradients up, whatever the result looks like."""
    last = None
    for event in events or ():
        if event[0] in ("backward", "step"):
            last = event[0]
        elif last == "backward" and event[2] > 0 and event[4] is not None:
            return True
    return False


def _limit_story(events, max_norm):
    """(evidence, English, Chinese) where every clip_grad_norm_ call between backward() and
    step() clipped the parameters to another max_norm than the argument (a number of the
    learner's own, such as the tutorial's 1.0); None otherwise."""
    if not events:
        return None
    limits, last = [], None
    for event in events:
        if event[0] in ("backward", "step"):
            last = event[0]
        elif last == "backward" and event[1] > 0 and event[4] is not None:
            limits.append(event[4])
    if not limits or any(math.isclose(v, max_norm, rel_tol=1e-9) for v in limits):
        return None
    used = limits[0]
    return (
        "clip_limit_not_argument",
        f"clip_grad_norm_ was called with max_norm={used:g}, not the max_norm argument "
        f"({max_norm:g}): the gradients were clipped to another length. Pass the argument "
        "through: clip_grad_norm_(model.parameters(), max_norm)",
        f"clip_grad_norm_ 调用时用的是 max_norm={used:g}，而不是参数 max_norm（{max_norm:g}）："
        "梯度被裁剪到了另一个长度。请把参数传下去：clip_grad_norm_(model.parameters(), max_norm)",
    )


def _compare_steps(learner, reference, args, what, attach=None, source=""):
    """Parameters after the learner's steps against the reference's; name parameters that
    never moved, or a replayed mistake where the learner's run shows its cause."""
    got = learner.run(step_run, *args)
    want = step_run(reference, *args)
    if attach is not None:  # the loss of each step, for the report's chart
        attach("loss_curve", {"yours": _curve(got["before"]), "expected": _curve(want["before"])})

    def close(params, other):
        return all(
            a.shape == b.shape
            and torch.allclose(a.detach().cpu(), b.detach().cpu(), rtol=1e-4, atol=1e-5)
            for a, b in zip(params, other)
        )

    if not close(got["params"], want["params"]):
        _never_moved(got, args, what, source)
        for kind in STORIES:
            mistake = step_run(_Mistake(kind), *args)
            if close(got["params"], mistake["params"]):
                evidence, en, zh = STORIES[kind]
                if kind == "no_clip":
                    # the steps of no clipping at all: what the clipping calls saw says why
                    story = _clip_story(_clips_seen(learner, args))
                    if story is None:
                        continue
                    evidence, en, zh = story
                if kind == "normalize" and _library_clip_between(_clips_seen(learner, args)):
                    continue  # clip_grad_norm_ never scales up: the gradients came in too large
                fail(
                    f"{what}: {en}.",
                    f"{what}：{zh}。",
                    evidence=["values_differ", evidence],
                )
        # a clipping limit of the learner's own, where the max_norm argument was due
        story = _limit_story(_clips_seen(learner, args), args[4])
        if story is not None:
            evidence, en, zh = story
            fail(f"{what}: {en}.", f"{what}：{zh}。", evidence=["values_differ", evidence])
        # an optimizer of the learner's own, stepped in place of the one passed in
        story = own_optimizer_used(learner, step_run, *args)
        if story is not None:
            evidence, en, zh = story
            fail(f"{what}: {en}.", f"{what}：{zh}。", evidence=["values_differ", evidence])
    for i, (g, w) in enumerate(zip(got["params"], want["params"])):
        assert_close(g, w, f"{what} → list(model.parameters())[{i}]", rtol=1e-4, atol=1e-5)
    return got, want


def _bad_grad(learner, reference, case, device, seed):
    got = learner.run(bad_grad_run, case, device, seed)
    want = bad_grad_run(reference, case, device, seed)
    return got, want["result"]


def _as_bool(value, what):
    """The learner's answer as a bool (a one-element tensor is accepted; the type is judged by
    test_has_bad_grad_returns_bool)."""
    if isinstance(value, torch.Tensor) and value.numel() == 1:
        return bool(value.reshape(()))
    if isinstance(value, (bool, int)):
        return bool(value)
    we, wz = names(what)
    fail(
        f"{we} should be True or False, but yours is {describe(value)}.",
        f"{wz} 应该是 True 或 False，但你的结果是 {describe_zh(value)}。",
        evidence=["wrong_type"],
    )


CASE_TEXT = {
    "finite": ("every gradient finite", "所有梯度都是有限数"),
    "nan": ("one NaN in a bias's gradient", "某个偏置的梯度中有一个 NaN"),
    "inf": ("one inf in a weight's gradient", "某个权重的梯度中有一个 inf"),
    "-inf": ("one -inf in a bias's gradient", "某个偏置的梯度中有一个 -inf"),
    "huge": ("huge but finite gradients (about 1e25)", "梯度极大但仍是有限数（约 1e25）"),
    "near_max": (
        "finite gradients close to the largest float32 (every value about 1.7e38)",
        "梯度都是有限数，但接近 float32 的最大值（每个值约 1.7e38）",
    ),
    "fresh": (
        "no gradients at all yet (every .grad is None)",
        "还没有任何梯度（所有 .grad 都是 None）",
    ),
    "unused_head": (
        "a layer the loss did not use (its .grad is None), the rest finite",
        "有一层没有被损失用到（它的 .grad 是 None），其余梯度都是有限数",
    ),
    "frozen": (
        "a frozen weight (requires_grad=False, .grad None), the rest finite",
        "有一个被冻结的权重（requires_grad=False，.grad 为 None），其余梯度都是有限数",
    ),
    "frozen_nan": (
        "a frozen weight (.grad None) and one NaN elsewhere",
        "有一个被冻结的权重（.grad 为 None），另外某处有一个 NaN",
    ),
}


def _sum_overflows(learner, device, seed):
    """Whether the learner's check, which called finite values close to the float32 maximum
    bad, says False when each gradient holds only one of them: then it is not the values it
    objects to but a sum (or mean) of them, which overflows to inf once a few are added up."""
    got = learner.run(bad_grad_run, "near_max_one", device, seed)["result"]
    return got is False or (
        isinstance(got, torch.Tensor) and got.numel() == 1 and not bool(got.reshape(()))
    )


def _return_in_loop(source):
    """(line, code) of the first ``return`` inside a loop of has_bad_grad that returns anything
    but True (``return False`` in an else branch, or for a .grad that is None), or None."""
    lines = source.splitlines()
    for func in _defined(source, "has_bad_grad"):
        for loop in ast.walk(func):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            for node in (n for stmt in loop.body for n in ast.walk(stmt)):
                if isinstance(node, ast.Return) and not (
                    isinstance(node.value, ast.Constant) and node.value.value is True
                ):
                    return node.lineno, lines[node.lineno - 1].strip()
    return None


def _stops_at_first(learner, learner_source, case, device, seed):
    """The ``return`` that ends the learner's loop early, when its check finds the same bad
    value placed in the first parameter's gradient (it misses it only further on), else None."""
    found = _return_in_loop(learner_source)
    if found is None:
        return None
    value = {"inf": "inf", "-inf": "-inf"}.get(case, "nan")
    got = learner.run(bad_grad_run, f"poison:0:0:{value}", device, seed)["result"]
    if got is True or (
        isinstance(got, torch.Tensor) and got.numel() == 1 and bool(got.reshape(()))
    ):
        return found
    return None


# bad_grad_run's parameters in order; "poison:<i>:<flat index>:<value>" places a value in the i-th
PARAMETERS = [
    "body.0.weight",
    "body.0.bias",
    "body.2.weight",
    "body.2.bias",
    "head.weight",
    "head.bias",
]
# where the fixed cases put their bad value: (parameter, flat index)
PLACES = {"nan": (1, 2), "inf": (2, 9), "-inf": (5, 0)}
# where the cases holding one NaN put it (frozen_nan: body.2.bias[1])
NAN_PLACES = {"nan": PLACES["nan"], "frozen_nan": (3, 1)}


def _is_true(value):
    """The learner's answer is True (or a one-element tensor that is)."""
    return value is True or (
        isinstance(value, torch.Tensor) and value.numel() == 1 and bool(value.reshape(()))
    )


def _finds(learner, which, index, value, device, seed):
    case = f"poison:{which}:{index}:{value}"
    return _is_true(learner.run(bad_grad_run, case, device, seed)["result"])


def _finds_only_whole(learner, case, device, seed):
    """The learner's check, which missed the single bad value of ``case``, finds that value
    where it fills the whole of the same parameter's gradient: it calls a gradient bad only
    when all its values are (``not torch.isfinite(g).any()``, ``(~torch.isfinite(g)).all()``)."""
    # frozen_nan puts its NaN in body.2.bias (parameter 3), the others where PLACES says
    which, value = (NAN_PLACES[case][0], "nan") if case == "frozen_nan" else (PLACES[case][0], case)
    got = learner.run(bad_grad_run, f"whole:{which}:{value}", device, seed)["result"]
    return _is_true(got)


def _only_last_decides(learner, value, device, seed):
    """The learner's check finds ``value`` in the last parameter's gradient and in no other
    (the same value placed at the start of each): its loop keeps only the last answer."""
    last = len(PARAMETERS) - 1
    if not _finds(learner, last, 0, value, device, seed):
        return False
    return not any(_finds(learner, i, 0, value, device, seed) for i in range(last))


def _overwritten_in_loop(source):
    """(line, code) of an assignment inside a loop of has_bad_grad that replaces a name the
    function returns, without reading it (``bad = not torch.isfinite(p.grad).all()``), or None."""
    lines = source.splitlines()
    for func in _defined(source, "has_bad_grad"):
        returned = {
            n.value.id
            for n in ast.walk(func)
            if isinstance(n, ast.Return) and isinstance(n.value, ast.Name)
        }
        for loop in ast.walk(func):
            if not isinstance(loop, (ast.For, ast.While)):
                continue
            for node in (n for stmt in loop.body for n in ast.walk(stmt)):
                if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                    continue
                target = node.targets[0]
                if (
                    isinstance(target, ast.Name)
                    and target.id in returned
                    and not any(
                        isinstance(n, ast.Name) and n.id == target.id for n in ast.walk(node.value)
                    )
                ):
                    return node.lineno, lines[node.lineno - 1].strip()
    return None


def _last_decides_story(source):
    """(English, Chinese) for a check whose loop keeps only the last parameter's answer."""
    found = _overwritten_in_loop(source)
    at_en = f" (`{found[1]}`, line {found[0]})" if found else ""
    at_zh = f"（第 {found[0]} 行的 `{found[1]}`）" if found else ""
    return (
        " Your check finds the same value in the last parameter's gradient (head.bias) and in "
        f"no other: each pass of your loop replaces the answer of the pass before{at_en}, so "
        "only the last parameter decides. Combine the answers of all the parameters: return "
        "True as soon as one gradient is bad, or bad = bad or ..., or any(...) over all of them.",
        "你的检查能在最后一个参数（head.bias）的梯度中找到同样的值，在其他参数中却找不到：你的循环"
        f"每一轮都把上一轮的答案替换掉了{at_zh}，所以只有最后一个参数说了算。请把所有参数的答案合起来："
        "一发现坏梯度就 return True，或者 bad = bad or ...，或者对所有参数用 any(...)。",
    )


class _WrongCheck:
    """A has_bad_grad written wrong, replayed on the trusted side as the reference is."""

    def __init__(self, has_bad_grad):
        self.has_bad_grad = has_bad_grad


# has_bad_grad with its `not` missing: around every answer (the answer to "are all the
# gradients fine?"), or inside any() ("is some gradient fine?"); (story in English, Chinese)
_NOT_MISSING = {
    "all": (
        _WrongCheck(
            lambda model: all(
                p.grad is None or bool(torch.isfinite(p.grad).all()) for p in model.parameters()
            )
        ),
        "it answers whether every gradient is fine (True when all are finite, False when one "
        "holds a NaN or an inf): the opposite of the question",
        "它回答的是“是否所有梯度都正常”（全是有限数时为 True，有 NaN 或 inf 时为 False）：与题目的问题恰好相反",
    ),
    "any": (
        _WrongCheck(
            lambda model: any(
                p.grad is not None and bool(torch.isfinite(p.grad).all())
                for p in model.parameters()
            )
        ),
        "it answers whether some gradient is fine (True as soon as one parameter's gradient is "
        "all finite, NaN or not elsewhere): the `not` is missing inside any()",
        "它回答的是“是否有某个梯度正常”（只要有一个参数的梯度全是有限数就为 True，不管别处有没有 "
        "NaN）：any() 里面少了 `not`",
    ),
}
_NOT_MISSING_CASES = tuple(CASE_TEXT)


def _not_missing_story(learner, device, seed):
    """(English, Chinese) where the learner's check gives, in every case, the answers of
    has_bad_grad with its `not` missing in one way alone (:data:`_NOT_MISSING`), else None."""
    got = [learner.run(bad_grad_run, case, device, seed)["result"] for case in _NOT_MISSING_CASES]
    if not all(
        isinstance(g, bool) or (isinstance(g, torch.Tensor) and g.numel() == 1) for g in got
    ):
        return None
    answers = [_is_true(g) for g in got]
    fits = [
        (en, zh)
        for mistake, en, zh in _NOT_MISSING.values()
        if answers
        == [bad_grad_run(mistake, case, device, seed)["result"] for case in _NOT_MISSING_CASES]
    ]
    return fits[0] if len(fits) == 1 else None


def _only_first_decides(learner, value, device, seed):
    """The learner's check finds ``value`` in the first parameter's gradient and in no other
    (the same value placed at the start of each): it looks at the first parameter only."""
    if not _finds(learner, 0, 0, value, device, seed):
        return False
    return not any(_finds(learner, i, 0, value, device, seed) for i in range(1, len(PARAMETERS)))


def _only_first_story():
    return (
        " Your check finds the same value in the first parameter's gradient (body.0.weight) "
        "and in no other: it looks at one parameter only (next(model.parameters()), "
        "list(model.parameters())[0]). A bad value can be in any of them: check every "
        "parameter, any(not torch.isfinite(p.grad).all() for p in model.parameters() if p.grad "
        "is not None).",
        "你的检查能在第一个参数（body.0.weight）的梯度中找到同样的值，在其他参数中却找不到：它只看了"
        "一个参数（next(model.parameters())、list(model.parameters())[0]）。坏值可能出现在任何"
        "参数中：请检查每一个参数，any(not torch.isfinite(p.grad).all() for p in "
        "model.parameters() if p.grad is not None)。",
    )


def _check_cases(learner, reference, device, seed, cases, source=""):
    for i, case in enumerate(cases):
        en, zh = CASE_TEXT[case]
        what = "has_bad_grad(model)"
        got, want = _bad_grad(learner, reference, case, device, seed + i)
        result = _as_bool(got["result"], Text(f"{what} [{en}]", f"{what}（{zh}）"))
        if result != want:
            evidence = ["values_differ"]
            extra_en = extra_zh = ""
            early = None if result else _stops_at_first(learner, source, case, device, seed + i)
            inverted = _not_missing_story(learner, device, seed) if result else None
            if inverted is not None:
                evidence.append("bad_grad_inverted")
                extra_en = (
                    f" In every case your check gives the answers of one whose `not` is missing: "
                    f"{inverted[0]}. torch.isfinite(g).all() is True when a gradient is fine; it "
                    "is bad when that is not so: any(not torch.isfinite(p.grad).all() for p in "
                    "model.parameters() if p.grad is not None)."
                )
                extra_zh = (
                    f"在所有情况下，你的检查给出的答案都和少了 `not` 的检查一样：{inverted[1]}。梯度正常时 "
                    "torch.isfinite(g).all() 为 True；它不成立时梯度才是坏的：any(not "
                    "torch.isfinite(p.grad).all() for p in model.parameters() if p.grad is not None)。"
                )
            elif early is not None:
                line, code = early
                evidence.append("returned_inside_loop")
                extra_en = (
                    f" Your check finds the same value in the first parameter's gradient, but "
                    f"`{code}` (line {line}) returns from inside the loop, so the check ends at "
                    "the first parameter it reaches and never looks at the others. Skip a "
                    "parameter with `continue` (for a .grad that is None), and return False "
                    "only after the loop, once every parameter has been checked."
                )
                extra_zh = (
                    f"你的检查能在第一个参数的梯度中找到同样的值，但 `{code}`（第 {line} 行）在循环"
                    "内部就返回了，所以检查停在它遇到的第一个参数上，根本不看其余参数。请用 "
                    "`continue` 跳过参数（.grad 为 None 时），并且只在循环结束、所有参数都检查过之后"
                    "再返回 False。"
                )
            elif not result and _only_first_decides(
                learner, "nan" if "nan" in case else case, device, seed + i
            ):
                evidence.append("first_parameter_only")
                extra_en, extra_zh = _only_first_story()
            elif not result and _only_last_decides(
                learner, "nan" if "nan" in case else case, device, seed + i
            ):
                evidence.append("last_parameter_decides")
                extra_en, extra_zh = _last_decides_story(source)
            elif (
                not result
                and case in ("nan", "inf", "-inf", "frozen_nan")
                and _finds_only_whole(learner, case, device, seed + i)
            ):
                evidence.append("bad_only_when_all_bad")
                extra_en = (
                    " Your check does find a gradient whose every value is bad: it asks whether "
                    "all the values are NaN or inf (torch.isfinite(g).any() is True as soon as one "
                    "value is finite), where one is enough. Use not torch.isfinite(p.grad).all()."
                )
                extra_zh = (
                    "你的检查能发现所有值都是坏值的梯度：它问的是“是否所有值都是 NaN 或 inf”"
                    "（只要有一个值是有限数，torch.isfinite(g).any() 就是 True），而只要有一个坏值就够了。"
                    "请用 not torch.isfinite(p.grad).all()。"
                )
            elif case in ("inf", "-inf") and _finds(
                learner, *PLACES[case], "nan", device, seed + i
            ):
                # it finds a NaN in the very place where it misses the inf
                evidence.append("inf_not_detected")
                extra_en = (
                    " torch.isnan does not see inf: torch.isfinite(g).all() is False for both "
                    "NaN and ±inf."
                )
                extra_zh = (
                    "torch.isnan 看不到 inf：对 NaN 和 ±inf，torch.isfinite(g).all() 都是 False。"
                )
            elif (
                case in NAN_PLACES
                and _finds(learner, *NAN_PLACES[case], "inf", device, seed + i)
                and _finds(learner, *NAN_PLACES[case], "-inf", device, seed + i)
            ):
                # it finds inf and -inf in the very place where it misses the NaN
                evidence.append("nan_not_detected")
                extra_en = (
                    " Your check finds an inf and a -inf in the very place where it misses the "
                    "NaN: torch.isinf does not see NaN (NaN is not infinite, and a comparison "
                    "such as g.abs() > 1e38 or g == float('inf') is False for it). "
                    "torch.isfinite(g).all() is False for both NaN and ±inf."
                )
                extra_zh = (
                    "你的检查能在漏掉 NaN 的同一位置找到 inf 和 -inf：torch.isinf 看不到 NaN（NaN 不是"
                    "无穷大，g.abs() > 1e38 或 g == float('inf') 这样的比较对它也都是 False）。"
                    "对 NaN 和 ±inf，torch.isfinite(g).all() 都是 False。"
                )
            elif case == "near_max" and _sum_overflows(learner, device, seed + i):
                evidence.append("finite_sum_overflows")
                extra_en = (
                    " Every value is finite, but the sum of a gradient's values is not: float32 "
                    "ends at about 3.4e38, so adding up a few values of 1.7e38 overflows to inf "
                    "(your check says False when only one value per gradient is that large). "
                    "Test every element on its own: torch.isfinite(p.grad).all()."
                )
                extra_zh = (
                    "每个值都是有限数，但一个梯度所有值的和却不是：float32 最大约为 3.4e38，几个 "
                    "1.7e38 相加就会溢出成 inf（当每个梯度只有一个值这么大时，你的检查返回 False）。"
                    "请逐个元素检查：torch.isfinite(p.grad).all()。"
                )
            elif case in ("huge", "near_max"):
                extra_en = (
                    " Large gradients are a warning sign, but only NaN and inf are bad values "
                    "here (a sum or a norm of the values can overflow to inf although every "
                    "value is finite): test each element, torch.isfinite(p.grad).all()."
                )
                extra_zh = (
                    "梯度很大是危险信号，但这里只有 NaN 和 inf 才算坏值（即使所有值都是有限数，"
                    "它们的和或范数也可能溢出成 inf）：请逐个元素检查，torch.isfinite(p.grad).all()。"
                )
            fail(
                f"{what} with {en} should be {want}, but yours returned {result}.{extra_en}",
                f"{what}：{zh}时应返回 {want}，但你的结果是 {result}。{extra_zh}",
                evidence=evidence,
            )


# -- train_step -------------------------------------------------------------------------------------


def test_clips_total_norm(learner, reference, device, rng, seed, attach, learner_source):
    # The gradients are cleared between the calls here: the zeroing has its own test.
    cases = (("mlp", 0.05, 1.0), ("linear", 0.05, 0.5))
    for i, (kind, lr, max_norm) in enumerate(cases):
        X, y = (t.to(device) for t in _data(rng, 16, 3, scale=10.0))
        args = (kind, X, y, lr, max_norm, 5, False, seed + i, True)
        what = _what(kind, lr, max_norm, 5, ", ‖grad‖ ≈ 30")
        _compare_steps(learner, reference, args, what, attach if i == 0 else None, learner_source)


def test_small_gradients_unchanged(learner, reference, device, rng, seed, learner_source):
    X, y = (t.to(device) for t in _data(rng, 16, 3, scale=0.5))
    args = ("mlp", X, y, 0.1, 5.0, 5, False, seed, True)
    what = _what("mlp", 0.1, 5.0, 5, ", ‖grad‖ ≈ 1")
    _compare_steps(learner, reference, args, what, source=learner_source)


def _params_close(params, other):
    return len(params) == len(other) and all(
        a.shape == b.shape
        and torch.allclose(a.detach().cpu(), b.detach().cpu(), rtol=1e-5, atol=1e-6)
        for a, b in zip(params, other)
    )


def test_zeroes_stale_gradients(learner, device, rng, seed):
    # The learner against the learner: its steps on a model that arrives with gradients left in
    # .grad must be the steps it takes on the same model without them (whether those steps are
    # right is judged by the clipping tests).
    X, y = (t.to(device) for t in _data(rng, 16, 3, scale=0.5))
    stale = learner.run(step_run, "mlp", X, y, 0.1, 1000.0, 3, True, seed)
    fresh = learner.run(step_run, "mlp", X, y, 0.1, 1000.0, 3, False, seed)
    if not _params_close(stale["params"], fresh["params"]):
        what = "model(X).sum().backward(); " + _what("mlp", 0.1, 1000.0, 3)
        fail(
            f"{what}: with gradients left in .grad before the first call, your steps differ from "
            "the steps your own train_step takes on the same model without them: the old "
            "gradients were added to the new ones. Zero them at the start of every step, before "
            "backward() (zero_grad, backward, clip, step).",
            f"{what}：调用之前 .grad 中留有梯度时，你的更新与你自己的 train_step 在没有这些梯度的同一模型"
            "上的更新不同：旧梯度被加到了新梯度上。请在每一步开始、backward() 之前清零"
            "（zero_grad、backward、裁剪、step）。",
            evidence=["values_differ", "gradients_accumulate"],
        )


def test_views(learner, device, rng, seed):
    # The learner on views of X and y against the same learner on contiguous copies.
    X, y = (t.to(device) for t in _data(rng, 16, 3, scale=10.0))
    args = ("linear", X, y, 0.05, 0.5, 5, False, seed, True)
    plain = learner.run(step_run, *args)
    views = learner.run(step_run, *args, True)
    what = _what("linear", 0.05, 0.5, 5, ", X = X.t().contiguous().t(), y = cat([y, 0], 1)[:, :1]")
    for i, (g, w) in enumerate(zip(views["params"], plain["params"])):
        assert_close(
            g,
            w,
            Text(
                f"{what} → list(model.parameters())[{i}], against your own result on contiguous "
                "X and y",
                f"{what} → list(model.parameters())[{i}]，与你自己在连续的 X 和 y 上的结果相比",
            ),
            rtol=1e-5,
            atol=1e-6,
        )


def test_leaves_inputs_alone(learner, device, rng, seed):
    X, y = (t.to(device) for t in _data(rng, 16, 3, scale=2.0))
    what = _what("linear", 0.05, 1.0, 3)
    got = learner.run(step_run, "linear", X, y, 0.05, 1.0, 3, False, seed)
    for name, before in (("X", X), ("y", y)):
        assert_unchanged(before, got[name], Text(f"{name} after {what}", f"{what} 之后的 {name}"))


def _norm_returned(got, before, norms, what):
    """Fails where every call returned the total gradient norm (clip_grad_norm_'s return value)
    rather than the loss, and at least one norm is not that call's loss."""
    if not got or len(got) != len(norms):
        return
    close = lambda a, b: math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)
    if not all(close(g, n) for g, n in zip(got, norms)):
        return
    if all(close(n, w) for n, w in zip(norms, before)):
        return
    i = next(i for i, (n, w) in enumerate(zip(norms, before)) if not close(n, w))
    fail(
        f"{what}: call {i + 1} returned {got[i]:.6g}, but the loss of the model it received was "
        f"{before[i]:.6g}. Every value you returned is the total norm of the gradients before "
        "clipping, which clip_grad_norm_ returns; return the loss: loss.item() of the loss you "
        "called backward() on.",
        f"{what}：第 {i + 1} 次调用返回了 {got[i]:.6g}，但它收到的模型的损失是 {before[i]:.6g}。"
        "你返回的每个值都是裁剪之前梯度的总范数，也就是 clip_grad_norm_ 的返回值；请返回损失："
        "你调用 backward() 的那个损失的 loss.item()。",
        evidence=["values_differ", "returned_grad_norm"],
    )


def _loss_limited(got, before, max_norm, what):
    """Fails where every call whose loss was above max_norm returned max_norm, and the others
    their loss: the loss itself was limited to max_norm (scaled or clamped), not the gradients."""
    close = lambda a, b: math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)
    if not got or len(got) != len(before) or all(w <= max_norm for w in before):
        return
    if not all(close(g, max_norm if w > max_norm else w) for g, w in zip(got, before)):
        return
    i = next(i for i, w in enumerate(before) if w > max_norm)
    fail(
        f"{what}: call {i + 1} returned {got[i]:.6g}, max_norm itself, but the loss of the model "
        f"it received was {before[i]:.6g}: your train_step limits the loss to max_norm (it "
        "scales or clamps the loss). max_norm bounds the norm of the gradients: after "
        "loss.backward(), torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm), then "
        "optimizer.step(); the loss is left as it is and returned as loss.item().",
        f"{what}：第 {i + 1} 次调用返回了 {got[i]:.6g}，正是 max_norm，但它收到的模型的损失是 "
        f"{before[i]:.6g}：你的 train_step 把损失限制在了 max_norm（对损失做了缩放或截断）。max_norm "
        "限制的是梯度的范数：在 loss.backward() 之后调用 torch.nn.utils.clip_grad_norm_("
        "model.parameters(), max_norm)，再 optimizer.step()；损失保持原样，用 loss.item() 返回。",
        evidence=["values_differ", "loss_limited_not_gradients"],
    )


def _loss_summed(got, before, n, what):
    """Fails where every call returned n times the mean squared error of the model it received
    (n: the number of values in y): the loss is the sum of the squared errors."""
    close = lambda a, b: math.isclose(a, b, rel_tol=1e-4, abs_tol=1e-6)
    if n < 2 or not got or len(got) != len(before) or not all(w > 0 for w in before):
        return
    if not all(close(g, n * w) for g, w in zip(got, before)):
        return
    fail(
        f"{what}: call 1 returned {got[0]:.6g}, {n} times the mean squared error of the model it "
        f"received ({before[0]:.6g}), one factor per value of y: your loss is the sum of the "
        "squared errors (nn.MSELoss(reduction='sum'), or .sum()), not their mean; its gradients "
        "are n times larger too. Use nn.MSELoss(), the mean.",
        f"{what}：第 1 次调用返回了 {got[0]:.6g}，是它收到的模型的均方误差（{before[0]:.6g}）的 {n} "
        "倍，y 的每个值贡献一倍：你的损失是平方误差之和（nn.MSELoss(reduction='sum') 或 .sum()），"
        "而不是它们的均值；它的梯度也大了 n 倍。请使用 nn.MSELoss()，即均值。",
        evidence=["values_differ", "scaled_by_size"],
    )


def test_returns_loss(learner, device, rng, seed):
    X, y = (t.to(device) for t in _data(rng, 12, 2, scale=2.0))
    what = _what("linear", 0.05, 1.0, 3)
    run = learner.run(step_run, "linear", X, y, 0.05, 1.0, 3, False, seed)
    got, before = as_floats(run["losses"], what).tolist(), run["before"]
    _norm_returned(got, before, run["norms"], what)
    _loss_limited(got, before, 1.0, what)
    _loss_summed(got, before, y.numel(), what)
    for i, (g, w) in enumerate(zip(got, before)):
        if not math.isclose(g, w, rel_tol=1e-4, abs_tol=1e-6):
            after = i + 1 < len(before) and math.isclose(
                g, before[i + 1], rel_tol=1e-4, abs_tol=1e-6
            )
            fail(
                f"{what}: call {i + 1} returned {g:.6g}, but the loss of the model it received "
                f"was {w:.6g}; return the loss computed before the step."
                + (" Yours is the loss after the step." if after else ""),
                f"{what}：第 {i + 1} 次调用返回了 {g:.6g}，但它收到的模型的损失是 {w:.6g}；"
                "请返回在更新之前计算的损失。" + ("你的是更新之后的损失。" if after else ""),
                evidence=["values_differ"] + (["loss_after_step"] if after else []),
            )


def test_returns_float(learner, rng, seed):
    X, y = _data(rng, 8, 2, scale=1.0)
    what = _what("linear", 0.05, 1.0, 1)
    (value,) = learner.run(step_run, "linear", X, y, 0.05, 1.0, 1, False, seed)["losses"]
    if isinstance(value, torch.Tensor):
        fail(
            f"{what} should return the loss as a Python float, but yours is {describe(value)}: "
            "return loss.item(), so the caller does not keep the step's graph alive.",
            f"{what} 应该以 Python 浮点数返回损失，但你的结果是 {describe_zh(value)}：请返回 "
            "loss.item()，这样调用者就不会让这一步的计算图一直占用内存。",
            evidence=["wrong_type", "tensor_instead_of_float"],
        )
    if not isinstance(value, float):
        fail(
            f"{what} should return the loss as a Python float, but yours is {describe(value)}.",
            f"{what} 应该以 Python 浮点数返回损失，但你的结果是 {describe_zh(value)}。",
            evidence=["wrong_type"],
        )


# -- has_bad_grad -------------------------------------------------------------------------------------


def test_has_bad_grad_detects(learner, reference, device, seed, learner_source):
    cases = ("finite", "nan", "inf", "-inf", "huge", "near_max")
    _check_cases(learner, reference, device, seed, cases, learner_source)


def test_has_bad_grad_leaves_gradients(learner, reference, device, seed):
    # What the check does to the gradients, in the cases where every parameter has one (the
    # answers are judged by the other has_bad_grad tests).
    for i, case in enumerate(("finite", "nan", "inf", "-inf", "huge", "near_max")):
        en, zh = CASE_TEXT[case]
        got, _ = _bad_grad(learner, reference, case, device, seed + i)
        if got["grads_changed"]:
            fail(
                f"has_bad_grad(model) with {en} changed the model's gradients; a check must only "
                "read them (no zero_grad(), no nan_to_num_(), no in-place clipping).",
                f"has_bad_grad(model)：{zh}时修改了模型的梯度；检查只能读取梯度（不要 zero_grad()、"
                "nan_to_num_() 或原地裁剪）。",
                evidence=["param_grad_changed"],
            )


def test_has_bad_grad_missing_gradients(learner, reference, device, seed, learner_source):
    cases = ("fresh", "unused_head", "frozen", "frozen_nan")
    _check_cases(learner, reference, device, seed, cases, learner_source)


def test_has_bad_grad_returns_bool(learner, seed):
    for i, case in enumerate(("finite", "nan")):
        value = learner.run(bad_grad_run, case, "cpu", seed + i)["result"]
        en, zh = CASE_TEXT[case]
        if isinstance(value, torch.Tensor):
            fail(
                f"has_bad_grad(model) [{en}] should return a Python bool, but yours returned "
                f"{describe(value)}. torch.isnan(g).any() is a tensor: turn it into a bool with "
                "bool(...) or .item(), or test it with `if` inside your function.",
                f"has_bad_grad(model)（{zh}）应该返回 Python bool，但你的结果是 {describe_zh(value)}。"
                "torch.isnan(g).any() 是张量：请用 bool(...) 或 .item() 把它变成 bool，"
                "或在函数内部用 `if` 判断它。",
                evidence=["wrong_type", "tensor_instead_of_bool"],
            )
        if not isinstance(value, bool):
            fail(
                f"has_bad_grad(model) [{en}] should return a Python bool, but yours returned "
                f"{describe(value)}.",
                f"has_bad_grad(model)（{zh}）应该返回 Python bool，但你的结果是 {describe_zh(value)}。",
                evidence=["wrong_type"],
            )


@settings(PROPERTY, max_examples=15)
@given(
    which=st.integers(0, 5),
    index=st.integers(0, 35),
    value=st.sampled_from(["nan", "inf", "-inf"]),
)
def test_has_bad_grad_anywhere(learner, seed, which, index, value, learner_source):
    # Parameters: body.0.weight (6, 4), body.0.bias, body.2.weight (2, 6), body.2.bias,
    # head.weight (2, 2), head.bias; the index wraps around each one's size.
    case = f"poison:{which}:{index}:{value}"
    result = _as_bool(learner.run(bad_grad_run, case, "cpu", seed)["result"], "has_bad_grad(model)")
    if result is not True:
        # A kind of value the check misses in its usual place too is judged by
        # test_has_bad_grad_detects: here only the place matters.
        usual = learner.run(bad_grad_run, value, "cpu", seed)["result"]
        if _as_bool(usual, "has_bad_grad(model)") is not True:
            return
        # It finds this kind of value in its usual place, so it does not miss the kind: the
        # place is what it misses.
        evidence, extra_en, extra_zh = ["values_differ"], "", ""
        if _only_first_decides(learner, value, "cpu", seed):
            evidence.append("first_parameter_only")
            extra_en, extra_zh = _only_first_story()
        elif _only_last_decides(learner, value, "cpu", seed):
            evidence.append("last_parameter_decides")
            extra_en, extra_zh = _last_decides_story(learner_source)
        fail(
            f"has_bad_grad(model) should be True when {PARAMETERS[which]}.grad holds a single "
            f"{value} (at flat index {index}), but yours returned {result}.{extra_en}",
            f"当 {PARAMETERS[which]}.grad 中有一个 {value}（展平后下标 {index}）时，has_bad_grad(model) "
            f"应返回 True，但你的结果是 {result}。{extra_zh}",
            evidence=evidence,
        )
