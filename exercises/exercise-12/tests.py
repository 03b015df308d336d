"""Hidden tests of exercise-12: device-agnostic code.

Pitfalls from the seeds, each with the tests that catch it:
- tensors created without a device live on the CPU: torch.randn(x.shape), torch.arange(n)
  ("Expected all tensors to be on the same device", 000 §3.3, §8.1, 001 §7.1, 003 §1.3):
  test_add_noise_on_device and test_length_mask_on_device, which run on the meta device (a
  stand-in for a GPU on any machine: it has a device but no data) and on CUDA;
- a float32 tensor mixed into float16 or float64 data promotes the result (000 §8.3):
  test_add_noise_keeps_dtype;
- one device variable and .to(device) everywhere, never a hard-coded .cuda() (000 §3.3, 001 §8.1):
  the to_device tests, on nested dicts, lists and tuples, to the device and back.
Noise is random, so add_noise is tested by its statistics (mean, standard deviation, the share
within one standard deviation, a fresh draw on every call), never by exact values. The reference
is never run on meta here: a first meta operation costs about a second in a process.

Each test judges one requirement (see `requirements` in exercise.yaml): the statistics test
judges the noise, the dtype test the dtype and the device tests the device; the to_device
"moves" test judges where every tensor went (and that the batch was left alone), the structure
test the containers, the keys and the other leaves; only test_leaves_inputs_alone judges that
add_noise and length_mask leave their inputs alone (input_check is off elsewhere).
"""

import math

import torch

from grader.spec import Text
from grader.testing import (
    Opaque,
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_shape,
    call_on_meta,
    check,
    describe,
    device_of,
    expect_tensor,
    fail,
    names,
)
from grader.testing.checks import describe_zh
from grader.testing.relations import relate

# ---------------------------------------------------------------------------------------------
# add_noise


# the standard deviation a noise has when std was taken for the variance or the reverse:
# (name in English, in Chinese, the standard deviation as a function of std)
_MISREAD_STD = (
    ("std ** 2, the variance", "std ** 2，即方差", lambda s: s * s),
    ("sqrt(std), as if std were the variance", "sqrt(std)，好像 std 是方差一样", math.sqrt),
)


def _misread_std(sd, std, sd_at):
    """The story of noise whose standard deviation is std ** 2 or sqrt(std), told only where
    the same function called with another std (``sd_at(other)``: the standard deviation of the
    noise it adds then, or None) follows the same rule; else None. The second std, 3 (0.3
    where std is near 3), is one where neither rule meets a simpler slip: at 2 the square is
    also 2 * std, at 0.5 also std / 2 and 0.25, at 4 the square root is also std / 2, so noise
    doubled near std = 2 would match std ** 2 at both."""
    other = 3.0 if abs(std - 3.0) > 0.5 else 0.3
    for name_en, name_zh, rule in _MISREAD_STD:
        if not (
            math.isclose(sd, rule(std), rel_tol=0.02)
            and not math.isclose(rule(std), std, rel_tol=0.05)
        ):
            continue
        sd_other = sd_at(other) if sd_at is not None else None
        if sd_other is None or not math.isclose(sd_other, rule(other), rel_tol=0.02):
            continue
        return (
            f"its standard deviation is {name_en} ({sd:.4g} for std={std:g}, {sd_other:.4g} for "
            f"std={other:g}). std is the standard deviation itself: torch.randn_like(x) * std "
            "has standard deviation std, with no square or square root",
            f"它的标准差是 {name_zh}（std={std:g} 时为 {sd:.4g}，std={other:g} 时为 "
            f"{sd_other:.4g}）。std 本身就是标准差：torch.randn_like(x) * std 的标准差就是 std，"
            "不需要平方或开方",
        )
    return None


def _noise_stats(got, x, std, what, *, strict, sd_at=None):
    """Check that got - x looks like fresh N(0, std^2) noise; ``strict`` for large float32 inputs.
    ``sd_at(other_std)``: the standard deviation of the noise the same function adds for another
    std, asked only to name a std taken for the variance (or the reverse)."""
    we, wz = names(what)
    noise = got.detach().cpu().double() - x.detach().cpu().double()
    n = noise.numel()
    if not bool(noise.ne(0).any()):
        fail(
            f"{we} returned x unchanged: no noise was added.",
            f"{wz} 原样返回了 x：没有加上任何噪声。",
            evidence=["values_differ", "no_noise"],
        )
    mean, sd = float(noise.mean()), float(noise.std())
    within = float((noise.abs() <= std).double().mean())
    mean_tol = (6 if strict else 10) * std / n**0.5
    sd_tol = 0.02 if strict else 0.1
    if mean > mean_tol and float((noise >= 0).double().mean()) > 0.99:
        fail(
            f"{we}: the noise you added is never negative (mean {mean:.4g} instead of 0): "
            "torch.rand is uniform on [0, 1); Gaussian noise comes from torch.randn.",
            f"{wz}：你加上的噪声从不为负（均值为 {mean:.4g}，而不是 0）："
            "torch.rand 是 [0, 1) 上的均匀分布；高斯噪声要用 torch.randn。",
            evidence=["values_differ", "uniform_instead_of_normal"],
        )
    check(
        abs(mean) <= mean_tol,
        f"{we}: the noise you added should have mean 0, but its mean is {mean:.4g}.",
        f"{wz}：你加上的噪声均值应为 0，但实际均值为 {mean:.4g}。",
        evidence=["values_differ", "noise_mean"],
    )
    misread = None if abs(sd / std - 1) <= sd_tol else _misread_std(sd, std, sd_at)
    if misread is not None:
        fail(
            f"{we}: the noise you added should have standard deviation {std:g}, but {misread[0]}.",
            f"{wz}：你加上的噪声标准差应为 {std:g}，但{misread[1]}。",
            evidence=["values_differ", "noise_scale", "std_squared_or_rooted"],
        )
    check(
        abs(sd / std - 1) <= sd_tol,
        f"{we}: the noise you added should have standard deviation {std:g}, but it has {sd:.4g}. "
        "torch.randn has standard deviation 1: multiply it by std.",
        f"{wz}：你加上的噪声标准差应为 {std:g}，但实际为 {sd:.4g}。torch.randn 的标准差是 1："
        "请乘以 std。",
        evidence=["values_differ", "noise_scale"],
    )
    if strict and not 0.66 <= within <= 0.705:
        fail(
            f"{we}: {within:.1%} of the noise lies within one standard deviation of 0; Gaussian "
            "noise puts 68.3% there. Draw it with torch.randn (or torch.randn_like), not torch.rand.",
            f"{wz}：噪声中有 {within:.1%} 落在 0 的一个标准差之内；高斯噪声应为 68.3%。"
            "请用 torch.randn（或 torch.randn_like）而不是 torch.rand 生成噪声。",
            evidence=["values_differ", "uniform_instead_of_normal"],
        )


def _noise_sd(learner, x, std):
    """The standard deviation of the noise learner.add_noise(x, std) adds, or None where it
    gives no tensor of x's shape."""
    got = learner.add_noise(x, std)
    if not isinstance(got, torch.Tensor) or got.shape != x.shape:
        return None
    return float((got.detach().cpu().double() - x.detach().cpu().double()).std())


def _same_shape(got, x, what):
    got = expect_tensor(got, what)
    assert_shape(got, x.shape, what)
    return got


def _same_dtype(got, x, what):
    we, wz = names(what)
    got = _same_shape(got, x, what)
    if got.dtype != x.dtype:
        fail(
            f"{we} should keep x's dtype {str(x.dtype)[6:]}, but yours is {str(got.dtype)[6:]}: "
            "the noise was created in another dtype (torch.randn's default is float32), and adding "
            "it promoted the result. Create the noise like x: torch.randn_like(x), or dtype=x.dtype.",
            f"{wz} 应保持 x 的 dtype {str(x.dtype)[6:]}，但你的结果是 {str(got.dtype)[6:]}："
            "噪声是用另一种 dtype 创建的（torch.randn 默认是 float32），相加时结果的类型被自动提升了。"
            "请按 x 的样子创建噪声：torch.randn_like(x)，或 dtype=x.dtype。",
            evidence=["wrong_dtype", "dtype_promoted"],
        )
    return got


def test_add_noise_statistics(learner, device, rng):
    # A transposed view of 60 000 values: the statistics are sharp, and the layout is unusual.
    x = torch.randn(250, 240, generator=rng).to(device).t()
    for std in (0.5, 2.0):
        what = Text(
            f"add_noise(x, {std}) for x of shape (240, 250)",
            f"add_noise(x, {std})（x 的形状为 (240, 250)）",
        )
        first = _same_shape(learner.add_noise(x, std), x, what)
        _noise_stats(first, x, std, what, strict=True, sd_at=lambda s: _noise_sd(learner, x, s))
        second = _same_shape(learner.add_noise(x, std), x, what)
        check(
            not torch.equal(first.detach().cpu(), second.detach().cpu()),
            f"{what.en} added exactly the same noise on two calls: draw fresh noise on every call "
            "(do not re-seed inside the function).",
            f"{what.zh} 两次调用加上的噪声完全相同：每次调用都应重新采样噪声（不要在函数内部重新设置随机种子）。",
            evidence=["values_differ", "same_noise"],
        )
    what = Text("add_noise(x, 0.0)", "add_noise(x, 0.0)")
    assert_close(
        learner.add_noise(x, 0.0), x.contiguous(), what, rtol=0, atol=0, check_device=False
    )


def test_add_noise_keeps_dtype(learner, device, rng):
    for dtype in (torch.float64, torch.float16):
        name = str(dtype)[6:]
        x = torch.randn(100, 160, generator=rng).to(dtype).to(device)[:, ::2]
        what = Text(
            f"add_noise(x, 1.5) for a {name} x of shape (100, 80)",
            f"add_noise(x, 1.5)（x 是形状为 (100, 80) 的 {name} 张量）",
        )
        # The dtype only: the noise itself is judged by test_add_noise_statistics.
        _same_dtype(learner.add_noise(x, 1.5), x, what)


def test_add_noise_on_device(learner, device, rng):
    for dtype in (torch.float32, torch.float16):
        name = str(dtype)[6:]
        x = torch.randn(4, 6, generator=rng).to(dtype).to(device)
        what = Text(
            f'add_noise(x, 0.1) for a {name} x of shape (4, 6) on "{device}"',
            f'add_noise(x, 0.1)（x 是位于 "{device}"、形状为 (4, 6) 的 {name} 张量）',
        )
        # The device only: the statistics and the dtype have their own tests.
        assert_device(_same_shape(learner.add_noise(x, 0.1), x, what), x.device, what)


# ---------------------------------------------------------------------------------------------
# length_mask


def _lengths_cases(rng):
    """(description in both languages, lengths on the CPU, max_len)."""
    lengths = torch.randint(0, 8, (6,), generator=rng)
    lengths[0], lengths[-1] = 0, 7
    strided = torch.stack(
        [torch.randint(0, 5, (4,), generator=rng), torch.randint(0, 5, (4,), generator=rng)], dim=1
    )
    return [
        (("6 lengths from 0 to 7", "0 到 7 之间的 6 个长度"), lengths, 7),
        (("a single length", "单个长度"), torch.tensor([3]), 5),
        (("lengths all equal to max_len", "全部等于 max_len 的长度"), torch.tensor([4, 4, 4]), 4),
        (("lengths all 0", "全部为 0 的长度"), torch.tensor([0, 0]), 3),
        (
            ("lengths taken from a column (a strided view)", "取自某一列的长度（带步长的视图）"),
            strided[:, 1],
            5,
        ),
        (("max_len 1", "max_len 为 1"), torch.tensor([1, 0, 1]), 1),
        (("max_len 0", "max_len 为 0"), torch.tensor([0, 0]), 0),
        (
            ("no lengths at all (B = 0)", "空的长度张量（B = 0）"),
            torch.zeros(0, dtype=torch.int64),
            4,
        ),
    ]


def _mask_as_numbers(got, want, what):
    """Name a mask turned into numbers (.int(), .long(), .float(), * 1): its 0s and 1s are the
    right mask, value for value, in another dtype than bool."""
    if got.dtype == torch.bool or got.device.type == "meta" or not got.numel():
        return
    if got.shape != want.shape or got.is_complex():
        return
    theirs = got.detach().cpu()
    if not torch.equal(theirs.double(), want.detach().cpu().double()):
        return
    we, wz = names(what)
    kind = str(got.dtype).removeprefix("torch.")
    fail(
        f"{we} should have dtype bool, but yours has dtype {kind}: your 0s and 1s are the right "
        "mask, turned into numbers (.int(), .long(), .float() or a product). The comparison "
        "positions < lengths[:, None] is a bool tensor already: return it as it is.",
        f"{wz} 的 dtype 应为 bool，但你的结果是 {kind}：你的 0 和 1 正是正确的掩码，只是被转换成了数字"
        "（.int()、.long()、.float() 或乘法）。比较 positions < lengths[:, None] 本身就是 bool "
        "张量：直接返回它即可。",
        evidence=["wrong_dtype", "mask_as_numbers"],
    )


def _compare_mask(got, want, lengths, max_len, what):
    """The bool mask against the reference's, values and dtype (the device has its own test)."""
    we, wz = names(what)
    got = expect_tensor(got, what)
    if tuple(got.shape) != tuple(want.shape) and got.device.type != "meta":
        # a mask of the wrong shape that is the right one transposed ((max_len, B), the
        # positions and the lengths indexed the other way round) says so
        relation = relate(got.detach().cpu(), want.detach().cpu())
        if relation is not None:
            fail(
                f"{we} should have shape {tuple(want.shape)}, but yours has shape "
                f"{tuple(got.shape)}. {relation.en}",
                f"{wz} 的形状应为 {tuple(want.shape)}，但你的结果形状为 {tuple(got.shape)}。"
                f"{relation.zh}",
                evidence=["wrong_shape", relation.tag],
            )
    assert_shape(got, want.shape, what)
    if got.dtype == torch.float32 and got.numel() == 0 and want.dtype == torch.bool:
        # The empty cases come after the filled ones, whose masks were bool: a float32 here
        # is the default dtype of a tensor made from lists with no values in them.
        fail(
            f"{we} should have dtype bool, but yours is an empty float32 tensor of shape "
            f"{tuple(got.shape)}: torch.tensor of empty rows ([[], []]) has no value to take a "
            "dtype from, so it gets PyTorch's default, float32 (your masks with values in them "
            "are bool). Say the dtype, torch.tensor(rows, dtype=torch.bool, device=...), or "
            "compare tensors, torch.arange(max_len, device=lengths.device) < lengths[:, None], "
            "which is bool even when empty.",
            f"{wz} 的 dtype 应为 bool，但你的结果是形状为 {tuple(got.shape)} 的空 float32 张量："
            "由空行构成的 torch.tensor（[[], []]）里没有任何值可以决定 dtype，于是得到 PyTorch 的"
            "默认 dtype float32（你的掩码在有值时是 bool）。请写明 dtype：torch.tensor(rows, "
            "dtype=torch.bool, device=...)，或者直接比较张量：torch.arange(max_len, "
            "device=lengths.device) < lengths[:, None]，它即使为空也是 bool。",
            evidence=["wrong_dtype", "empty_list_default_dtype"],
        )
    _mask_as_numbers(got, want, what)
    assert_dtype(got, torch.bool, what)
    theirs, ours = got.detach().cpu(), want.detach().cpu()
    bad = theirs != ours
    if bool(bad.any()):
        row, col = (int(i) for i in bad.nonzero()[0])
        length = int(lengths[row])
        if length == 0:
            rule_en, rule_zh = "so all its positions are False", "所以它的所有位置都为 False"
        else:
            rule_en = f"so positions 0 to {length - 1} are True and the others False"
            rule_zh = f"所以位置 0 到 {length - 1} 为 True，其余为 False"
        relation = relate(theirs, ours)  # e.g. every mask one position too long
        more_en, more_zh = (f" {relation.en}", relation.zh) if relation else ("", "")
        fail(
            f"{we}: row {row} has length {length}, {rule_en}; at position {col} yours is "
            f"{bool(theirs[row, col])}, expected {bool(ours[row, col])}. A position is inside "
            f"when position < length.{more_en}",
            f"{wz}：第 {row} 行的长度为 {length}，{rule_zh}；在位置 {col} 你的结果是 "
            f"{bool(theirs[row, col])}，期望 {bool(ours[row, col])}。只有当 位置 < 长度 时才在序列之内。"
            f"{more_zh}",
            evidence=["values_differ"] + ([relation.tag] if relation else []),
        )


def test_length_mask_values(learner, reference, device, rng):
    for (en, zh), lengths, max_len in _lengths_cases(rng):
        lengths = lengths.to(device)
        what = Text(
            f"length_mask(lengths, {max_len}) for {en}", f"length_mask(lengths, {max_len})（{zh}）"
        )
        _compare_mask(
            learner.length_mask(lengths, max_len),
            reference.length_mask(lengths, max_len),
            lengths.cpu(),
            max_len,
            what,
        )


def _mask_on_cpu(what, said=None):
    we, wz = names(what)
    why_en = f" (PyTorch said: {said})" if said else ""
    why_zh = f"（PyTorch 报错：{said}）" if said else ""
    fail(
        f"{we} built the mask on the CPU{why_en}: the positions or the lengths were moved to (or "
        "created on) the CPU, e.g. with lengths.cpu() or torch.arange(max_len) without device=. "
        "Build the mask where lengths lives: torch.arange(max_len, device=lengths.device) < "
        "lengths[:, None].",
        f"{wz} 在 CPU 上构造了掩码{why_zh}：位置或长度被移到了（或创建在）CPU 上，例如 "
        "lengths.cpu()，或没有 device= 的 torch.arange(max_len)。请在 lengths 所在的设备上构造掩码："
        "torch.arange(max_len, device=lengths.device) < lengths[:, None]。",
        evidence=["wrong_device", "mask_built_on_cpu"],
    )


def test_length_mask_on_device(learner, device, rng):
    # The device only: the values and the dtype are judged by test_length_mask_values.
    lengths = torch.randint(0, 6, (5,), generator=rng).to(device)
    what = Text(
        f'length_mask(lengths, 6) for 5 lengths on "{device}"',
        f'length_mask(lengths, 6)（5 个长度，位于 "{device}"）',
    )
    if device == "meta":
        answer = learner.run(call_on_meta, "length_mask", [lengths, 6])
        if "copied_out_of_meta" in answer:  # lengths.cpu(), or a copy into a CPU tensor
            _mask_on_cpu(what, answer["copied_out_of_meta"])
        got = expect_tensor(answer["value"], what)
    else:
        got = expect_tensor(learner.length_mask(lengths, 6), what)
    if torch.device(device_of(got)).type == "cpu":
        _mask_on_cpu(what)
    assert_device(got, device, what)


# ---------------------------------------------------------------------------------------------
# to_device


def _batch(rng):
    """A nested batch: dicts, lists and tuples (one empty), tensors of several dtypes and layouts,
    and leaves that are not tensors."""
    return {
        "image": torch.randn(2, 3, 4, generator=rng),
        "pair": (torch.arange(5), torch.randn(4, 3, generator=rng).t()),
        "items": [
            torch.ones(3, dtype=torch.bool),
            {"mask": torch.tensor([True, False]), "name": "sample-7"},
            7,
        ],
        "info": {"id": 3, "scale": 0.5, "tag": None, "size": (2, 3), "ok": True},
        "nested": ([torch.zeros(2, dtype=torch.float64)], ("text", 1.5)),
        "empty": [(), {}],
    }


def _tree_to(value, device):
    if isinstance(value, torch.Tensor):
        return value.to(device)
    if isinstance(value, dict):
        return {k: _tree_to(v, device) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_tree_to(v, device) for v in value)
    return value


_KINDS = {dict: ("a dict", "dict"), list: ("a list", "list"), tuple: ("a tuple", "tuple")}


def _kind(value):
    """A short name for a value's type (a container's contents would make a long message)."""
    if isinstance(value, (dict, list, tuple, torch.Tensor)):
        return f"a {type(value).__name__}"
    return describe(value)


def _kind_zh(value):
    if isinstance(value, (dict, list, tuple)):
        return type(value).__name__
    if isinstance(value, torch.Tensor):
        return "张量"
    return describe_zh(value)


def _generator_for_tuple(got, sent, where_en, where_zh, what):
    """A tuple in the batch that came back as a generator: a comprehension in parentheses."""
    if not (isinstance(sent, tuple) and isinstance(got, Opaque) and got.type_name == "generator"):
        return
    fail(
        f"{what}: {where_en} should stay a tuple, but yours is a generator object: "
        "parentheses around a comprehension, as in (to_device(item, device) for item in batch), make a "
        "generator expression, not a tuple. Pass it to tuple(): "
        "tuple(to_device(item, device) for item in batch).",
        f"{what}：{where_zh} 应该仍是 tuple，但你的结果是生成器对象："
        "用圆括号括起来的推导式 (to_device(item, device) for item in batch) 是生成器表达式，"
        "而不是元组。请把它传给 tuple()：tuple(to_device(item, device) for item in batch)。",
        evidence=["container_changed", "generator_not_tuple"],
    )


def _compare_tree(got, sent, device, path, what, strict=True):
    """got should have sent's structure, with every tensor on ``device`` and every other leaf as it
    was. Not ``strict``: only the tensors are judged (a list for a tuple, the order of a dict's
    keys and the other leaves are test_to_device_keeps_structure's)."""
    where_en, where_zh = f"batch{path}", f"batch{path}"
    if isinstance(sent, torch.Tensor):
        if not isinstance(got, torch.Tensor):
            fail(
                f"{what}: {where_en} should be a tensor, but yours is {_kind(got)}.",
                f"{what}：{where_zh} 应该是张量，但你的结果是 {_kind_zh(got)}。",
                evidence=["not_a_tensor"],
            )
        if torch.device(device_of(got)).type != torch.device(device).type:
            fail(
                f"{what}: {where_en} should be on {device}, but yours is on {device_of(got)}: every "
                "tensor, at any depth and inside tuples too, must be moved with .to(device).",
                f"{what}：{where_zh} 应该位于 {device}，但你的结果位于 {device_of(got)}："
                "每个张量（无论嵌套多深，包括元组里的）都必须用 .to(device) 移动。",
                evidence=["wrong_device"],
            )
        inner = Text(f"{what}: {where_en}", f"{what}：{where_zh}")
        assert_equal(got, sent.to(device) if sent.device.type != "meta" else sent, inner)
        return
    kind = type(sent)
    _generator_for_tuple(got, sent, where_en, where_zh, what)
    if kind in _KINDS and not strict:
        sequences = (list, tuple)
        if kind is dict and isinstance(got, dict) and set(got) == set(sent):
            for key in sent:
                _compare_tree(got[key], sent[key], device, f"{path}[{key!r}]", what, strict)
            return
        if kind in sequences and isinstance(got, sequences) and len(got) == len(sent):
            for i, (g, s_) in enumerate(zip(got, sent)):
                _compare_tree(g, s_, device, f"{path}[{i}]", what, strict)
            return
        if kind is dict:
            items_en, items_zh = f"the keys {list(sent)}", f"键 {list(sent)}"
        else:
            items_en = f"{len(sent)} items, in a list or a tuple"
            items_zh = f"{len(sent)} 个元素，放在 list 或 tuple 中"
        # the same kind of container with other contents: say what it holds
        if kind is dict and isinstance(got, dict):
            yours_en, yours_zh = f"yours has the keys {list(got)}", f"你的结果的键是 {list(got)}"
        elif kind in sequences and isinstance(got, sequences):
            yours_en = f"yours holds {len(got)} items"
            yours_zh = f"你的结果包含 {len(got)} 个元素"
        else:
            yours_en, yours_zh = f"yours is {_kind(got)}", f"你的结果是 {_kind_zh(got)}"
        fail(
            f"{what}: {where_en} should hold the same items as the batch ({items_en}), but "
            f"{yours_en}.",
            f"{what}：{where_zh} 应包含与 batch 相同的元素（{items_zh}），但{yours_zh}。",
            evidence=["container_changed"],
        )
    if not strict:
        return  # a leaf that is not a tensor: judged by test_to_device_keeps_structure
    if kind in _KINDS:
        if kind is tuple and type(got) is list and len(got) == len(sent):
            fail(
                f"{what}: {where_en} should stay a tuple, but yours is a list of its "
                f"{len(sent)} items: the tuple was rebuilt as a list ([... for item in batch], "
                "or one branch for lists and tuples). Rebuild a tuple as a tuple: "
                "tuple(to_device(item, device) for item in batch), or type(batch)(...).",
                f"{what}：{where_zh} 应该仍是 tuple，但你的结果是包含它 {len(sent)} 个元素的 list："
                "tuple 被重建成了 list（[... for item in batch]，或对 list 和 tuple 用同一个分支）。"
                "请把 tuple 重建为 tuple：tuple(to_device(item, device) for item in batch)，"
                "或 type(batch)(...)。",
                evidence=["container_changed", "tuple_became_list"],
            )
        if type(got) is not kind:
            fail(
                f"{what}: {where_en} should stay {_KINDS[kind][0]}, but yours is {_kind(got)}. "
                "Return the same kind of container: a tuple stays a tuple, a list a list.",
                f"{what}：{where_zh} 应该仍是 {_KINDS[kind][1]}，但你的结果是 {_kind_zh(got)}。"
                "请返回同类的容器：tuple 仍是 tuple，list 仍是 list。",
                evidence=["container_changed"],
            )
        if kind is dict:
            if list(got) != list(sent):
                fail(
                    f"{what}: {where_en} should have the keys {list(sent)}, but yours has {list(got)}.",
                    f"{what}：{where_zh} 的键应为 {list(sent)}，但你的结果是 {list(got)}。",
                    evidence=["container_changed"],
                )
            for key in sent:
                _compare_tree(got[key], sent[key], device, f"{path}[{key!r}]", what)
            return
        if len(got) != len(sent):
            fail(
                f"{what}: {where_en} should hold {len(sent)} items, but yours holds {len(got)}.",
                f"{what}：{where_zh} 应包含 {len(sent)} 个元素，但你的结果包含 {len(got)} 个。",
                evidence=["container_changed"],
            )
        for i, (g, s) in enumerate(zip(got, sent)):
            _compare_tree(g, s, device, f"{path}[{i}]", what)
        return
    if type(got) is not type(sent) or got != sent:
        fail(
            f"{what}: {where_en} is not a tensor and should come back unchanged ({sent!r}), but yours "
            f"is {describe(got)}.",
            f"{what}：{where_zh} 不是张量，应原样返回（{sent!r}），但你的结果是 {describe_zh(got)}。",
            evidence=["values_differ", "leaf_changed"],
        )


def _unchanged(after, sent, path=""):
    """Where the learner's call changed the batch it was given (or None)."""
    if isinstance(sent, torch.Tensor):
        if not isinstance(after, torch.Tensor) or after.device.type != sent.device.type:
            return path
        if sent.device.type != "meta" and not torch.equal(after.cpu(), sent.cpu()):
            return path
        return None
    if isinstance(sent, dict):
        if not isinstance(after, dict) or list(after) != list(sent):
            return path
        for key in sent:
            found = _unchanged(after[key], sent[key], f"{path}[{key!r}]")
            if found is not None:
                return found
        return None
    if isinstance(sent, (list, tuple)):
        if not isinstance(after, (list, tuple)) or len(after) != len(sent):
            return path
        for i, (a, s) in enumerate(zip(after, sent)):
            found = _unchanged(a, s, f"{path}[{i}]")
            if found is not None:
                return found
    return None


def _to_device(learner, batch, device):
    """learner.to_device(batch, device), checking by hand that the batch was left alone.

    The automatic input check does not look at devices, and cannot read a tensor that was moved
    to meta in place; this one compares structure, devices and values.
    """
    got = learner.call("to_device", batch, device, allow_mutation=True)
    after = (learner.last.after_args or [batch])[0]
    changed = _unchanged(after, batch)
    if changed is not None:
        fail(
            f"to_device changed the batch it was given (batch{changed} is no longer what it was): "
            "it assigned the moved tensors into the caller's dict or list. Build and return new "
            "containers instead, e.g. {key: to_device(value, device) for key, value in batch.items()}.",
            f"to_device 修改了传入的 batch（batch{changed} 已经不是原来的值）：它把移动后的张量赋值回了"
            "调用者的 dict 或 list。请构造并返回新的容器，例如 "
            "{key: to_device(value, device) for key, value in batch.items()}。",
            evidence=["input_mutated", "input_moved"],
        )
    return got


def test_to_device_moves_every_tensor(learner, device, rng):
    batch = _batch(rng)
    for target in (device, torch.device(device)):
        shown = repr(target) if isinstance(target, torch.device) else f'"{target}"'
        what = f"to_device(batch, {shown})"
        _compare_tree(_to_device(learner, batch, target), batch, device, "", what, strict=False)
    if device != "meta":
        # And back: tensors on the device return to the CPU.
        on_device = _tree_to(batch, device)
        got = _to_device(learner, on_device, "cpu")
        _compare_tree(got, on_device, "cpu", "", 'to_device(batch, "cpu")', strict=False)


def test_to_device_keeps_structure(learner, rng):
    batch = _batch(rng)
    _compare_tree(_to_device(learner, batch, "cpu"), batch, "cpu", "", 'to_device(batch, "cpu")')
    for leaf in ("text", 3, None):
        got = _to_device(learner, leaf, "cpu")
        check(
            type(got) is type(leaf) and got == leaf,
            f'to_device({leaf!r}, "cpu") should return {leaf!r} unchanged, but yours returned {describe(got)}.',
            f'to_device({leaf!r}, "cpu") 应原样返回 {leaf!r}，但你的结果是 {describe_zh(got)}。',
            evidence=["values_differ", "leaf_changed"],
        )


# ---------------------------------------------------------------------------------------------
# The inputs


def test_leaves_inputs_alone(learner, device, rng):
    # The only test that judges the inputs of add_noise and length_mask (input_check is off in
    # the others): every call here fails if it changes them (values, dtype, requires_grad).
    x = torch.randn(6, 5, generator=rng).to(device)
    learner.add_noise(x, 0.5)
    learner.add_noise(x.t(), 2.0)
    lengths = torch.randint(0, 6, (4,), generator=rng).to(device)
    learner.length_mask(lengths, 6)
