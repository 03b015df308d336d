"""Hidden tests of exercise-18: feature scaling and the BMI pipeline.

Pitfalls from the seeds (001 §6, 003 §5.4), each with the tests that catch it:
- BMI is weight / height**2; height * 2 is the classic slip: test_bmi_values, on the seed's own
  five people and on random tables;
- (x - min) / (max - min) divides 0 by 0 for a constant x, and x.std() is 0 for a constant
  column: NaN everywhere (000 §8.4): test_min_max_constant, test_standardize_constant_column;
- per-column statistics reduce dim=0 (000 §5.4), with torch.std's default (unbiased, n - 1), not
  the seed's global (x - x.mean()) / x.std(): test_standardize_values names a population std, a
  mean over the wrong dim and one global mean;
- 18.5 <= bmi <= 24.9 includes both bounds, and written with Python's chained comparison on a
  tensor it raises ("Boolean value of Tensor ... is ambiguous"): test_healthy_thresholds, with
  values exactly on and one float32 step around each bound.
min_max is also checked by a property test (range, ends, order, constants) on inputs hypothesis
shrinks to the smallest failing one. bmi and healthy run on the meta device as well; min_max and
standardize do not, because a correct solution may branch on a value there (if span == 0: ...).

Each test judges one requirement (see `requirements` in exercise.yaml): the constant-column test
looks at the constant columns only, the device test at the device only (and only for a function
that runs on the CPU at all: a crash there is the values tests'; code that reads values, which
meta cannot run, has its device judged from the source by the engine), and only
test_leaves_inputs_alone judges that the inputs are left alone (input_check is off elsewhere).
"""

import math

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing import (
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_shape,
    describe,
    expect_tensor,
    fail,
    names,
    on_meta,
)
from grader.testing.checks import assert_unchanged, describe_zh
from grader.testing.properties import PROPERTY


def _head(values):
    flat = values.reshape(-1)
    return ", ".join(f"{v:.6g}" for v in flat[:4].tolist()) + (", ..." if flat.numel() > 4 else "")


# ---------------------------------------------------------------------------------------------
# bmi


SEED_HEIGHTS = [1.65, 1.75, 1.80, 1.60, 1.70]  # the five people of the tutorial (001 §6.2)
SEED_WEIGHTS = [55.0, 70.0, 82.0, 50.0, 68.0]


def _people(rng, *shape):
    heights = 1.4 + 0.7 * torch.rand(*shape, generator=rng)
    weights = 40 + 90 * torch.rand(*shape, generator=rng)
    return heights, weights


def _bmi_cases(rng):
    """((English, Chinese) description, heights, weights)."""
    table = torch.stack(_people(rng, 6), dim=1)  # one row per person: (height, weight)
    wide = torch.stack(_people(rng, 4, 3), dim=0).transpose(1, 2)  # (2, 3, 4) -> views (3, 4)
    return [
        (
            ("the tutorial's five people", "教程中的五个人"),
            torch.tensor(SEED_HEIGHTS),
            torch.tensor(SEED_WEIGHTS),
        ),
        (("7 random people", "随机的 7 个人"), *_people(rng, 7)),
        (("a (3, 4) batch of people", "形状为 (3, 4) 的一批人"), *_people(rng, 3, 4)),
        (
            ("the columns of a table (strided views)", "表格中的两列（带步长的视图）"),
            table[:, 0],
            table[:, 1],
        ),
        (("transposed views", "转置得到的视图"), wide[0], wide[1]),
        (
            ("one person as 0-dimensional tensors", "用 0 维张量表示的一个人"),
            torch.tensor(1.82),
            torch.tensor(77.0),
        ),
        (("no people at all", "空的输入"), torch.zeros(0), torch.zeros(0)),
    ]


def test_bmi_values(learner, reference, device, rng):
    for (en, zh), heights, weights in _bmi_cases(rng):
        heights, weights = heights.to(device), weights.to(device)
        what = Text(f"bmi(heights_m, weights_kg) for {en}", f"bmi(heights_m, weights_kg)（{zh}）")
        got = expect_tensor(learner.bmi(heights, weights), what)
        want = reference.bmi(heights, weights)
        assert_shape(got, want.shape, what)
        assert_dtype(got, want.dtype, what)
        # The device is judged by test_bmi_and_healthy_on_device.
        theirs = got.detach().cpu().double()
        h, w = heights.cpu().double(), weights.cpu().double()
        if theirs.numel() and torch.allclose(theirs, w / (2 * h), rtol=1e-4):
            fail(
                f"{what.en}: yours is weight / (height * 2) ({_head(theirs)}), expected weight / "
                f"height² ({_head(want.cpu())}). height * 2 doubles the height; height ** 2 squares it.",
                f"{what.zh}：你的结果是 体重 / (身高 * 2)（{_head(theirs)}），期望 体重 / 身高²"
                f"（{_head(want.cpu())}）。height * 2 是把身高乘以 2；height ** 2 才是平方。",
                evidence=["values_differ", "doubled_not_squared"],
            )
        if (
            theirs.numel()
            and not torch.allclose(h, torch.ones_like(h))
            and torch.allclose(theirs, w, rtol=1e-5)
        ):
            fail(
                f"{what.en}: yours is the weights themselves ({_head(theirs)}), expected weight / "
                f"height² ({_head(want.cpu())}): weights_kg / heights_m * heights_m divides by the "
                "height and multiplies by it again, since / and * are worked out from left to "
                "right. Square the height first: weights_kg / heights_m ** 2, or weights_kg / "
                "(heights_m * heights_m).",
                f"{what.zh}：你的结果就是体重本身（{_head(theirs)}），期望 体重 / 身高²"
                f"（{_head(want.cpu())}）：weights_kg / heights_m * heights_m 先除以身高又乘回身高，"
                "因为 / 和 * 是从左到右计算的。请先求身高的平方：weights_kg / heights_m ** 2，"
                "或 weights_kg / (heights_m * heights_m)。",
                evidence=["values_differ", "divided_then_multiplied"],
            )
        story = bmi_order_story(theirs, h, w)
        if story is not None:
            evidence, en, zh = story
            fail(
                f"{what.en}: {en} (yours {_head(theirs)}, expected {_head(want.cpu())}).",
                f"{what.zh}：{zh}（你的结果 {_head(theirs)}，期望 {_head(want.cpu())}）。",
                evidence=["values_differ", evidence],
            )
        for scale, en_how, zh_how in _HEIGHT_RESCALED:
            if theirs.numel() and torch.allclose(theirs, w / (h * scale) ** 2, rtol=1e-4):
                fail(
                    f"{what.en}: every value of yours is {en_how} (yours {_head(theirs)}; "
                    f"expected {_head(want.cpu())}). The heights are already in metres (1.4 to "
                    "2.1): use them as they are, weights_kg / heights_m ** 2, with no conversion.",
                    f"{what.zh}：你的每个值都{zh_how}（你的结果 {_head(theirs)}；期望 "
                    f"{_head(want.cpu())}）。身高本来就以米为单位（1.4 到 2.1）：直接使用即可，"
                    "weights_kg / heights_m ** 2，不需要换算。",
                    evidence=["values_differ", "heights_rescaled"],
                )
        assert_close(got, want, what, check_device=False)


def bmi_order_story(got, h, w):
    """(evidence, English, Chinese) where every value is bmi with its two inputs swapped
    (height / weight², as from def bmi(weights_kg, heights_m) or the names swapped in the
    formula) or the formula turned upside down (height² / weight); None otherwise, and where
    the input makes either equal to the right answer."""
    right = w / h**2
    for formula, evidence, en, zh in (
        (
            h / w**2,
            "bmi_formula_swapped",
            "every value of yours is height / weight², the formula with its two inputs "
            "swapped: bmi is called as bmi(heights_m, weights_kg), heights first, so check the "
            "order of your parameters and that the weight is divided by the squared height: "
            "weights_kg / heights_m ** 2",
            "你的每个值都是 身高 / 体重²，也就是两个输入互换了位置的公式：bmi 的调用方式是 "
            "bmi(heights_m, weights_kg)，身高在前，请检查你的参数顺序，并确认是体重除以身高的平方："
            "weights_kg / heights_m ** 2",
        ),
        (
            h**2 / w,
            "formula_upside_down",
            "every value of yours is height² / weight, the formula upside down (one over the "
            "expected value): the weight is divided by the squared height, weights_kg / "
            "heights_m ** 2",
            "你的每个值都是 身高² / 体重，公式上下颠倒了（是期望值的倒数）：应当是体重除以身高的平方，"
            "weights_kg / heights_m ** 2",
        ),
    ):
        if (
            got.numel()
            and got.shape == formula.shape
            and torch.allclose(got, formula, rtol=1e-4)
            and not torch.allclose(formula, right, rtol=1e-4)
        ):
            return evidence, en, zh
    return None


def upside_down(got, want):
    """Every value of ``got`` is one over ``want``'s (inf, or NaN, where want is 0), and the
    two are not the same values (some value of want is not ±1): the formula's fraction turned
    upside down."""
    got, want = (t.detach().cpu().double() for t in (got, want))
    if got.shape != want.shape or not got.numel() or not bool(torch.isfinite(want).all()):
        return False
    zero = want == 0
    if not bool((torch.isinf(got[zero]) | torch.isnan(got[zero])).all()):
        return False
    if bool(zero.all()) or torch.allclose(want.abs(), torch.ones_like(want), rtol=1e-4):
        return False
    return torch.allclose(got[~zero], 1 / want[~zero], rtol=1e-4, atol=1e-9)


def _name_upside_down(got, want, what, fraction, right, right_zh=None):
    """Fails where ``got`` is one over ``want`` (:func:`upside_down`), naming the fraction."""
    if not upside_down(got, want):
        return
    we, wz = names(what)
    fail(
        f"{we}: every value of yours is one over the expected one (yours "
        f"{_head(got.detach().cpu())}, expected {_head(want.detach().cpu())}): the fraction is "
        f"upside down, {fraction}. It is {right}.",
        f"{wz}：你的每个值都是期望值的倒数（你的结果 {_head(got.detach().cpu())}，期望 "
        f"{_head(want.detach().cpu())}）：分式上下颠倒了，写成了 {fraction}。应当是 "
        f"{right_zh or right}。",
        evidence=["values_differ", "formula_upside_down"],
    )


# The heights rescaled as if they were in centimetres (/ 100) or to centimetres (* 100).
_HEIGHT_RESCALED = (
    (
        0.01,
        "10000 times the expected one, as if the heights were divided by 100 to turn "
        "centimetres into metres",
        "正好是期望值的 10000 倍，就像把身高除以 100、从厘米换算成米",
    ),
    (
        100.0,
        "1/10000 of the expected one, as if the heights were multiplied by 100 to turn "
        "metres into centimetres",
        "正好是期望值的 1/10000，就像把身高乘以 100、从米换算成厘米",
    ),
)


# ---------------------------------------------------------------------------------------------
# min_max


def _nan_message(what, got, en, zh):
    we, wz = names(what)
    fail(
        f"{we} contains NaN ({_head(got)}): {en}",
        f"{wz} 中含有 NaN（{_head(got)}）：{zh}",
        evidence=["values_differ", "nan_in_output"],
    )


# formulas learners write for min-max scaling in place of (x - min) / (max - min): (code,
# English, Chinese, the values they give)
_OTHER_SCALINGS = (
    (
        "(x - min) / max",
        "it divides by the maximum where the range max - min was due",
        "它除以的是最大值，而应该除以范围 max - min",
        lambda x: (x - x.min()) / x.max(),
    ),
    (
        "x / max",
        "it divides by the maximum and subtracts no minimum",
        "它除以的是最大值，而且没有减去最小值",
        lambda x: x / x.max(),
    ),
    (
        "(x - min) / max - min",
        "the parentheses around max - min are missing, so only max divides",
        "max - min 两边缺了括号，所以只除以了 max",
        lambda x: (x - x.min()) / x.max() - x.min(),
    ),
)


def _other_scaling(got, x, want):
    """Where the learner's values are one of _OTHER_SCALINGS of x (NaN where it gives NaN),
    the expected ones are not, and no other of them fits as well (x = [0, -0.125] gives inf and
    NaN for two: then what they share, a division by max), its (code, English, Chinese); else
    None."""
    got, x, want = (t.detach().cpu().double() for t in (got, x, want))
    if x.numel() == 0 or got.shape != x.shape:
        return None
    if bool((x == x.flatten()[0]).all()):
        # a constant x tells no formula apart: x / max is all ones there, as a standardised
        # x is where float32's rounding leaves x - mean a hair above 0
        return None
    # the formula itself, unguarded: on x = [0.0] it gives NaN as each of the others does, and
    # such an x cannot tell them apart
    plain = (x - x.min()) / (x.max() - x.min())
    fits = [
        (code, en, zh)
        for code, en, zh, scaling in _OTHER_SCALINGS
        if torch.allclose(got, scaling(x), rtol=1e-4, atol=1e-6, equal_nan=True)
        and not any(
            torch.allclose(scaling(x), other, rtol=1e-4, atol=1e-6, equal_nan=True)
            for other in (want, plain)
        )
    ]
    if len(fits) > 1:  # the input cannot tell them apart, but each of them divides by max
        codes = " and ".join(code for code, _, _ in fits)
        return (
            "a division by max",
            f"it divides by the maximum where the range max - min was due ({codes} give the "
            "same values for this x)",
            f"它除以的是最大值，而应该除以范围 max - min（对这个 x，{codes} 给出的值相同）",
        )
    return fits[0] if fits else None


def _name_other_scaling(got, x, want, what):
    """Fails, naming the formula, where the learner's values are one of _OTHER_SCALINGS of x."""
    other = _other_scaling(got, x, want)
    if other is None:
        return
    we, wz = names(what)
    code, en, zh = other
    fail(
        f"{we}: your values ({_head(got.detach().cpu())}) are {code} (expected "
        f"{_head(want.detach().cpu())}): {en}. Min-max scaling is (x - min) / (max - min), "
        "which sends the minimum to 0 and the maximum to 1; guard the division for a "
        "constant x: divide by torch.where(span > 0, span, 1).",
        f"{wz}：你的结果（{_head(got.detach().cpu())}）是 {code}（期望 "
        f"{_head(want.detach().cpu())}）：{zh}。最小-最大缩放是 (x - min) / (max - min)，"
        "它把最小值变为 0、最大值变为 1；对常数 x 要保护除法：除以 "
        "torch.where(span > 0, span, 1)。",
        evidence=["values_differ", "min_max_formula"],
    )


def _check_min_max(got, want, what, x=None):
    got = expect_tensor(got, what)
    assert_shape(got, want.shape, what)
    assert_dtype(got, want.dtype, what)
    assert_device(got, want.device, what)
    if x is not None:
        _name_other_scaling(got, x, want, what)
    _name_upside_down(
        got,
        want,
        what,
        "(max - min) / (x - min)",
        "(x - min) / (max - min): x minus the minimum on top, the range below, with the "
        "division guarded for a constant x (divide by torch.where(span > 0, span, 1))",
        "(x - min) / (max - min)：x 减去最小值放在分子，范围放在分母，并对常数 x 保护除法"
        "（除以 torch.where(span > 0, span, 1)）",
    )
    if bool(torch.isnan(got.detach().cpu()).any()):
        _nan_message(
            what,
            got.detach().cpu(),
            "when max == min, (x - min) / (max - min) is 0 / 0. A constant x should give zeros: "
            "guard the division, e.g. divide by torch.where(span > 0, span, 1).",
            "当 max == min 时，(x - min) / (max - min) 就是 0 / 0。常数 x 应得到全 0："
            "请保护这个除法，例如除以 torch.where(span > 0, span, 1)。",
        )
    assert_close(got, want, what, rtol=1e-5, atol=1e-6)


def test_min_max_values(learner, reference, device, rng):
    ties = torch.tensor([3.0, -1.0, 3.0, 0.5, -1.0, 2.0])
    big = 5e4 + 1e4 * torch.randn(20, generator=rng)
    matrix = torch.randn(5, 3, generator=rng)
    cases = [
        (("10 random values", "10 个随机值"), torch.randn(10, generator=rng)),
        (("two values", "两个值"), torch.tensor([4.0, -2.0])),
        (("repeated minimum and maximum", "最小值和最大值都重复出现"), ties),
        (("values around 50000", "50000 附近的值"), big),
        (
            ("every other element (a strided view)", "隔一个取一个（带步长的视图）"),
            torch.randn(16, generator=rng)[::2],
        ),
        (("a column of a matrix", "矩阵的一列"), matrix[:, 1]),
    ]
    for (en, zh), x in cases:
        x = x.to(device)
        what = Text(f"min_max(x) for {en}", f"min_max(x)（{zh}）")
        _check_min_max(learner.min_max(x), reference.min_max(x), what, x)


def test_min_max_constant(learner, reference, device):
    for (en, zh), x in (
        (("x = [3, 3, 3, 3, 3]", "x = [3, 3, 3, 3, 3]"), torch.full((5,), 3.0)),
        (("x = [0, 0, 0]", "x = [0, 0, 0]"), torch.zeros(3)),
        (("a single value", "只有一个值"), torch.tensor([7.25])),
    ):
        x = x.to(device)
        what = Text(f"min_max(x) for a constant x, {en}", f"min_max(x)（常数 x，{zh}）")
        _check_min_max(learner.min_max(x), reference.min_max(x), what, x)


# Values that are multiples of 1/8 are exact in float32, so every correct formula agrees.
_EIGHTHS = st.lists(st.integers(-800, 800), min_size=1, max_size=24).map(
    lambda v: [i / 8 for i in v]
)


@PROPERTY
@given(values=_EIGHTHS)
def test_min_max_properties(learner, reference, values):
    x = torch.tensor(values)
    what = Text(f"min_max(x) for x = {values}", f"min_max(x)（x = {values}）")
    we, wz = names(what)
    got = expect_tensor(learner.min_max(x), what)
    assert_shape(got, x.shape, what)
    assert_dtype(got, torch.float32, what)
    _name_other_scaling(got, x, reference.min_max(x), what)
    r = got.detach().cpu()
    if bool(torch.isnan(r).any()):
        _nan_message(
            what,
            r,
            "min_max must never produce NaN, even when max == min.",
            "即使 max == min，min_max 也不能产生 NaN。",
        )
    low, high = float(r.min()), float(r.max())
    if low < -1e-6 or high > 1 + 1e-5:
        fail(
            f"{we} should lie in [0, 1], but yours ranges from {low:.6g} to {high:.6g}.",
            f"{wz} 应位于 [0, 1] 之内，但你的结果范围是 {low:.6g} 到 {high:.6g}。",
            evidence=["values_differ", "out_of_range"],
        )
    if x.max() > x.min():
        at_min, at_max = float(r[x.argmin()]), float(r[x.argmax()])
        if abs(at_min) > 1e-6 or abs(at_max - 1) > 1e-5:
            fail(
                f"{we}: the smallest value should map to 0 and the largest to 1, but yours maps them "
                f"to {at_min:.6g} and {at_max:.6g}.",
                f"{wz}：最小值应映射为 0、最大值应映射为 1，但你的结果分别为 {at_min:.6g} 和 {at_max:.6g}。",
                evidence=["values_differ", "ends_not_0_and_1"],
            )
        order = torch.argsort(x, stable=True)
        if bool((r[order].diff() < -1e-6).any()):
            fail(
                f"{we} should keep the order of the values (scaling is increasing), but yours does not.",
                f"{wz} 应保持数值的大小顺序（缩放是单调递增的），但你的结果没有保持。",
                evidence=["values_differ", "order_changed"],
            )
    elif bool((r != 0).any()):
        fail(
            f"{we}: x is constant, so the result should be all zeros; yours is {_head(r)}.",
            f"{wz}：x 是常数，结果应全为 0；你的结果是 {_head(r)}。",
            evidence=["values_differ", "constant_not_zero"],
        )
    assert_close(got, reference.min_max(x), what, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------------------------
# standardize


def _triple(value, what):
    we, wz = names(what)
    if not isinstance(value, (tuple, list)):
        fail(
            f"{we} should return a tuple of three tensors (z, mean, std), but yours returned {describe(value)}.",
            f"{wz} 应返回由三个张量组成的元组（z、mean、std），但你的结果是 {describe_zh(value)}。",
            evidence=["wrong_type"],
        )
    if len(value) != 3:
        fail(
            f"{we} should return three tensors (z, mean, std), but yours returned {len(value)} values.",
            f"{wz} 应返回三个张量（z、mean、std），但你的结果有 {len(value)} 个值。",
            evidence=["wrong_length"],
        )
    return value


def _check_stat_shape(value, n, d, label):
    """mean and std hold one value per column; name the two classic wrong reductions."""
    we, wz = names(label)
    if tuple(value.shape) == (n,) and n != d:
        fail(
            f"{we} should hold one value per column, shape ({d},), but yours has shape ({n},): it "
            "was computed along each row. Per-column statistics reduce the rows: dim=0.",
            f"{wz} 应该每列一个值，形状为 ({d},)，但你的结果形状为 ({n},)：它是沿每一行计算的。"
            "按列统计要归约掉行：dim=0。",
            evidence=["wrong_shape", "reduced_wrong_dim"],
        )
    if tuple(value.shape) == (1, d):
        fail(
            f"{we} should have shape ({d},), but yours has shape (1, {d}): keepdim=True keeps the "
            "reduced dimension. It helps to broadcast inside the function; return the statistics "
            "without it (drop keepdim, or .squeeze(0)).",
            f"{wz} 的形状应为 ({d},)，但你的结果形状为 (1, {d})：keepdim=True 会保留被归约的维度。"
            "它在函数内部做广播时有用；返回统计量时请去掉这一维（不用 keepdim，或 .squeeze(0)）。",
            evidence=["wrong_shape", "keepdim_kept"],
        )
    if value.dim() == 0:
        fail(
            f"{we} should hold one value per column, shape ({d},), but yours is a single number "
            "for the whole matrix. Standardize each column: x.mean(dim=0), x.std(dim=0).",
            f"{wz} 应该每列一个值，形状为 ({d},)，但你的结果是整个矩阵的一个数。"
            "请对每一列分别标准化：x.mean(dim=0)、x.std(dim=0)。",
            evidence=["wrong_shape", "global_statistics"],
        )
    assert_shape(value, (d,), label)


def _check_stats_swapped(parts, x, what):
    """mean and std exchanged: the returned mean is x's per-column std and the returned std its
    per-column mean (torch.std_mean returns (std, mean), in that order)."""
    xs = x.detach().cpu().double()
    means, stds = xs.mean(dim=0), xs.std(dim=0)
    if torch.allclose(means, stds, rtol=1e-4, atol=1e-5):
        return  # the two statistics agree: exchanging them changes nothing
    mine_mean = parts["mean"].detach().cpu().double()
    mine_std = parts["std"].detach().cpu().double()
    if torch.allclose(mine_mean, stds, rtol=1e-4, atol=1e-5) and torch.allclose(
        mine_std, means, rtol=1e-4, atol=1e-5
    ):
        we, wz = names(what)
        fail(
            f"{we}: the mean you return is each column's standard deviation ({_head(mine_mean)}) "
            f"and the std is each column's mean ({_head(mine_std)}): the two are exchanged. "
            "torch.std_mean returns (std, mean), in that order: std, mean = torch.std_mean(x, dim=0).",
            f"{wz}：你返回的 mean 是每列的标准差（{_head(mine_mean)}），std 则是每列的均值"
            f"（{_head(mine_std)}）：两者对调了。torch.std_mean 按 (std, mean) 的顺序返回："
            "std, mean = torch.std_mean(x, dim=0)。",
            evidence=["values_differ", "stats_swapped"],
        )


def _check_standardize(got, want, x, what):
    """(z, mean, std) against the reference's, naming the classic mistakes first."""
    we, wz = names(what)
    n, d = x.shape
    parts = dict(zip(("z", "mean", "std"), _triple(got, what)))
    refs = dict(zip(("z", "mean", "std"), want))
    for name in ("mean", "std"):
        label = Text(f"the {name} returned by {we}", f"{wz} 返回的 {name}")
        parts[name] = expect_tensor(parts[name], label)
        _check_stat_shape(parts[name], n, d, label)
    _check_stats_swapped(parts, x, what)
    theirs, ours = parts["std"].detach().cpu().double(), refs["std"].detach().cpu().double()
    population = ours * ((n - 1) / n) ** 0.5
    if not torch.allclose(theirs, ours, rtol=1e-4, atol=1e-5) and torch.allclose(
        theirs, population, rtol=1e-4, atol=1e-5
    ):
        fail(
            f"the std returned by {we} is the population standard deviation, which divides by n "
            f"({_head(theirs)}; expected {_head(ours)}). torch.std's default is the sample standard "
            "deviation, which divides by n - 1: call x.std(dim=0) without unbiased=False or correction=0.",
            f"{wz} 返回的 std 是总体标准差，除以的是 n（{_head(theirs)}；期望 {_head(ours)}）。"
            "torch.std 默认计算样本标准差，除以 n - 1：调用 x.std(dim=0) 时不要加 unbiased=False 或 correction=0。",
            evidence=["values_differ", "biased_std"],
        )
    for name in ("z", "mean", "std"):
        label = Text(f"the {name} returned by {we}", f"{wz} 返回的 {name}")
        value = expect_tensor(parts[name], label)
        ref = refs[name]
        assert_shape(value, ref.shape, label)
        assert_dtype(value, ref.dtype, label)
        assert_device(value, ref.device, label)
        if name == "z":
            _name_upside_down(
                value,
                ref,
                label,
                "std / (x - mean)",
                "(x - mean) / std: x minus the column's mean on top, its std below, with the "
                "division guarded for a constant column (divide by torch.where(std > 0, std, 1))",
                "(x - mean) / std：x 减去该列均值放在分子，该列的 std 放在分母，并对常数列保护除法"
                "（除以 torch.where(std > 0, std, 1)）",
            )
        if bool(torch.isnan(value.detach().cpu()).any()):
            _nan_message(
                label,
                value.detach().cpu(),
                "a constant column has std 0, and (x - mean) / std is 0 / 0 there. Only centre such a "
                "column: divide by torch.where(std > 0, std, 1).",
                "常数列的 std 为 0，(x - mean) / std 在这一列就是 0 / 0。这样的列只需中心化："
                "除以 torch.where(std > 0, std, 1)。",
            )
        assert_close(value, ref, label, rtol=1e-4, atol=1e-5)


def _table(rng, n, d):
    """Columns with their own centre and spread, one of them on a large scale (a raw feature
    such as an income next to features of order 1: the reason to standardize at all)."""
    centres = 10 * torch.randn(d, generator=rng)
    scales = 0.5 + 3 * torch.rand(d, generator=rng)
    x = centres + scales * torch.randn(n, d, generator=rng)
    x[:, 0] = 5e4 + 1e4 * torch.randn(n, generator=rng)
    return x


def test_standardize_values(learner, reference, device, rng):
    cases = [
        (("x of shape (50, 3)", "x 的形状为 (50, 3)"), _table(rng, 50, 3)),
        (("x of shape (8, 5)", "x 的形状为 (8, 5)"), _table(rng, 8, 5)),
        (("x of shape (3, 2), only three rows", "x 的形状为 (3, 2)，只有三行"), _table(rng, 3, 2)),
        (("x of shape (30, 1)", "x 的形状为 (30, 1)"), _table(rng, 30, 1)),
        (
            ("x that is a transposed view of shape (6, 4)", "x 是转置得到的形状为 (6, 4) 的视图"),
            _table(rng, 4, 6).t(),
        ),
        (
            (
                "x made of every other column of a (7, 8) matrix",
                "x 取自 (7, 8) 矩阵的隔列（形状为 (7, 4)）",
            ),
            _table(rng, 7, 8)[:, ::2],
        ),
    ]
    for (en, zh), x in cases:
        x = x.to(device)
        what = Text(f"standardize(x) for {en}", f"standardize(x)（{zh}）")
        _check_standardize(learner.standardize(x), reference.standardize(x), x, what)


def _check_constant_columns(got, x, columns, what):
    """z, mean and std of the constant ``columns`` only: z zeros, the mean the constant, std 0,
    never NaN (the other columns are judged by test_standardize_values)."""
    we, wz = names(what)
    n, d = x.shape
    parts = dict(zip(("z", "mean", "std"), _triple(got, what)))
    for name in ("mean", "std"):
        label = Text(f"the {name} returned by {we}", f"{wz} 返回的 {name}")
        parts[name] = expect_tensor(parts[name], label)
        # A statistic that is not one value per column cannot be read by column: the values
        # test names the wrong reduction.
        _check_stat_shape(parts[name], n, d, label)
    _check_stats_swapped(parts, x, what)
    z = expect_tensor(parts["z"], Text(f"the z returned by {we}", f"{wz} 返回的 z"))
    assert_shape(z, (n, d), Text(f"the z returned by {we}", f"{wz} 返回的 z"))
    constant = x[0, columns].detach().cpu()
    for name, value, want in (
        ("z", z[:, columns], torch.zeros(n, len(columns))),
        ("mean", parts["mean"][columns], constant),
        ("std", parts["std"][columns], torch.zeros(len(columns))),
    ):
        label = Text(
            f"the {name} of the constant columns {columns} returned by {we}",
            f"{wz} 返回的常数列 {columns} 的 {name}",
        )
        value = value.detach().cpu()
        if bool(torch.isnan(value).any()):
            _nan_message(
                label,
                value,
                "a constant column has std 0, and (x - mean) / std is 0 / 0 there. Only centre such a "
                "column: divide by torch.where(std > 0, std, 1).",
                "常数列的 std 为 0，(x - mean) / std 在这一列就是 0 / 0。这样的列只需中心化："
                "除以 torch.where(std > 0, std, 1)。",
            )
        if name == "std":
            _check_guard_kept(value, label)
        assert_close(value, want, label, rtol=0, atol=1e-6, check_dtype=False)


def _check_guard_kept(std, label):
    """The std of constant columns (expected 0) is one and the same non-zero number for every
    such column, whatever their constants: the value a zero guard put into std itself."""
    first = float(std[0]) if std.numel() else 0.0
    if std.numel() < 2 or first == 0 or not math.isfinite(first) or bool((std != first).any()):
        return
    we, wz = names(label)
    fail(
        f"{we} are all {first:.6g}, expected 0: your guard against dividing by zero replaced the "
        "zeros in std itself (std[std == 0] = ..., or a clamp), so the std you return is wrong. "
        "Guard only the division and return std as torch.std gives it: z = (x - mean) / "
        "torch.where(std > 0, std, 1).",
        f"{wz} 全都是 {first:.6g}，期望为 0：你为避免除以零而做的保护把 std 本身中的 0 替换掉了"
        "（std[std == 0] = ...，或者 clamp），所以返回的 std 是错的。只在除法里做保护，返回 torch.std "
        "原本的结果：z = (x - mean) / torch.where(std > 0, std, 1)。",
        evidence=["values_differ", "zero_guard_changed_std"],
    )


def test_standardize_constant_column(learner, device, rng):
    # Constants that are exact in float32, so the mean is exact and torch.std gives exactly 0.
    x = torch.randn(6, 5, generator=rng)
    x[:, 1], x[:, 3], x[:, 4] = 2.5, 0.0, -1000.0
    cases = [
        (
            ("x of shape (6, 5) with three constant columns", "x 的形状为 (6, 5)，其中三列是常数"),
            x,
            [1, 3, 4],
        ),
        (
            ("an all-constant x of shape (4, 2)", "形状为 (4, 2) 的全常数 x"),
            torch.full((4, 2), 3.0),
            [0, 1],
        ),
    ]
    for (en, zh), x, columns in cases:
        x = x.to(device)
        what = Text(f"standardize(x) for {en}", f"standardize(x)（{zh}）")
        _check_constant_columns(learner.standardize(x), x, columns, what)


# ---------------------------------------------------------------------------------------------
# healthy


def _check_mask_dtype(got, what):
    we, wz = names(what)
    if got.dtype != torch.bool:
        fail(
            f"{we} should be a bool tensor, but yours has dtype {str(got.dtype)[6:]}. Comparisons "
            "such as bmi >= 18.5 already give bool tensors, and & keeps them bool: return that "
            "(no .float(), no multiplication by numbers).",
            f"{wz} 应该是 bool 张量，但你的结果 dtype 为 {str(got.dtype)[6:]}。bmi >= 18.5 这样的比较"
            "本身就得到 bool 张量，用 & 组合后仍是 bool：直接返回它即可（不要 .float()，也不要乘以数字）。",
            evidence=["wrong_dtype"],
        )


def _check_not_selected(got, values, want, what):
    """The healthy BMIs themselves (bmi[mask]) where the mask was due."""
    if got.device.type == "meta" or got.shape == want.shape or got.dim() != 1:
        return
    chosen = values.detach().cpu()[want.cpu()]
    if got.dtype == values.dtype and torch.equal(got.detach().cpu(), chosen):
        we, wz = names(what)
        fail(
            f"{we} should be a bool mask of shape {tuple(want.shape)}, one True or False per BMI, "
            f"but yours holds the {chosen.numel()} healthy values themselves ({_head(chosen)}): "
            "bmi[mask] picks out the values where the mask is True. Return the mask: "
            "(bmi >= 18.5) & (bmi <= 24.9).",
            f"{wz} 应当是形状为 {tuple(want.shape)} 的 bool 掩码，每个 BMI 对应一个 True 或 False，"
            f"但你的结果是 {chosen.numel()} 个健康的数值本身（{_head(chosen)}）：bmi[mask] 会取出掩码为 "
            "True 处的值。请直接返回掩码：(bmi >= 18.5) & (bmi <= 24.9)。",
            evidence=["wrong_shape", "selected_not_mask"],
        )


def test_healthy_thresholds(learner, reference, device, rng):
    low, high = torch.tensor(18.5), torch.tensor(24.9)  # 24.9 as float32, as the data are
    edges = torch.stack(
        [
            low,
            high,
            torch.nextafter(low, torch.tensor(0.0)),
            torch.nextafter(low, torch.tensor(100.0)),
            torch.nextafter(high, torch.tensor(0.0)),
            torch.nextafter(high, torch.tensor(100.0)),
        ]
    )
    seed_bmi = torch.tensor(SEED_WEIGHTS) / torch.tensor(SEED_HEIGHTS) ** 2
    table = 15 + 15 * torch.rand(4, 6, generator=rng)
    table[1, 2], table[3, 0] = 18.5, 24.9
    cases = [
        (
            (
                "BMIs exactly on the thresholds and one float32 step around them",
                "恰好等于阈值、以及比阈值大或小一个 float32 步长的 BMI",
            ),
            edges,
        ),
        (("the tutorial's five people", "教程中的五个人"), seed_bmi),
        (("a (4, 6) table of BMIs", "形状为 (4, 6) 的 BMI 表"), table),
        (("a column of that table (a strided view)", "该表的一列（带步长的视图）"), table[:, 2]),
    ]
    for (en, zh), values in cases:
        values = values.to(device)
        what = Text(f"healthy(bmi) for {en}", f"healthy(bmi)（{zh}）")
        got = expect_tensor(learner.healthy(values), what)
        want = reference.healthy(values)
        _check_not_selected(got, values, want, what)
        assert_shape(got, want.shape, what)
        _check_mask_dtype(got, what)
        assert_device(got, want.device, what)
        theirs, ours, v = got.detach().cpu(), want.cpu(), values.cpu()
        on_bound = (v == 18.5) | (v == high)
        if bool((theirs != ours)[on_bound].any()):
            value = float(v[on_bound & (theirs != ours)][0])
            fail(
                f"{what.en}: a BMI of exactly {value:.6g} is healthy (both bounds are included), but yours "
                "says False. Use >= and <=, not > and <.",
                f"{what.zh}：BMI 恰好为 {value:.6g} 时属于健康范围（两个边界都包含在内），但你的结果是 False。"
                "请用 >= 和 <=，而不是 > 和 <。",
                evidence=["values_differ", "bound_excluded"],
            )
        assert_equal(got, want, what)


# ---------------------------------------------------------------------------------------------
# The device


def call_safely(module, name, args):
    """module.<name>(*args), an exception brought back as data (an unfinished starter's
    NotImplementedError is raised as it is)."""
    try:
        return {"value": getattr(module, name)(*args)}
    except NotImplementedError:
        raise
    except Exception as exc:  # noqa: BLE001 - judged by the values tests
        return {"error": f"{type(exc).__name__}: {exc}"}


def test_bmi_and_healthy_on_device(learner, device, rng):
    # meta tensors have a device but no data: a tensor created on the CPU fails there as on a GPU.
    # Inputs are made on the CPU and moved: no operation runs on meta here (a first one costs
    # about a second in a process). The device only: the values and dtypes are judged by the
    # values tests, and a function that fails on the CPU too is left to them.
    heights, weights = _people(rng, 3, 2)
    values = 15 + 15 * torch.rand(3, 2, generator=rng)
    for name, args, en, zh in (
        (
            "bmi",
            (heights, weights),
            f'bmi(heights_m, weights_kg) for (3, 2) tensors on "{device}"',
            f'bmi(heights_m, weights_kg)（位于 "{device}" 的 (3, 2) 张量）',
        ),
        (
            "healthy",
            (values,),
            f'healthy(bmi) for a (3, 2) tensor on "{device}"',
            f'healthy(bmi)（位于 "{device}" 的 (3, 2) 张量）',
        ),
    ):
        on_cpu = learner.run(call_safely, name, list(args))
        if "error" in on_cpu:
            continue  # it fails on the CPU as well: the values tests report that
        what = Text(en, zh)
        # Code that reads values (an assert on the heights, bmi[mask]) cannot run on meta: the
        # engine judges its device from the source (grader.engine.plugin)
        got = expect_tensor(on_meta(learner, name, [a.to(device) for a in args], what), what)
        assert_device(got, device, what)


def inputs_after(module, name, args):
    """The inputs of module.<name>(*args) as they are after the call, even if it raises (an
    unfinished starter's NotImplementedError is raised as it is)."""
    try:
        getattr(module, name)(*args)
    except NotImplementedError:
        raise
    except Exception:  # noqa: BLE001 - what it returns or raises is the values tests'
        pass
    return list(args)


def test_leaves_inputs_alone(learner, rng):
    # The only test that judges the inputs (input_check is off in the others).
    heights, weights = _people(rng, 5)
    calls = [
        ("bmi", [heights, weights], ("heights_m", "weights_kg")),
        ("min_max", [torch.randn(7, generator=rng)], ("x",)),
        ("standardize", [_table(rng, 6, 3)], ("x",)),
        ("healthy", [15 + 15 * torch.rand(6, generator=rng)], ("bmi",)),
    ]
    for name, args, arg_names in calls:
        after = learner.run(inputs_after, name, args)
        for arg, before, now in zip(arg_names, args, after):
            assert_unchanged(
                before, now, Text(f"{arg} after {name}(...)", f"{name}(...) 之后的 {arg}")
            )


def test_min_max_on_device(learner, device, rng):
    # As test_bmi_and_healthy_on_device: a constant x too, whose zeros are often made apart
    # from x (torch.zeros(len(x)) lands on the CPU whatever x's device).
    for x, en, zh in (
        (torch.randn(6, generator=rng), "6 random values", "6 个随机值"),
        (torch.full((4,), 3.0), "a constant x = [3, 3, 3, 3]", "常数 x = [3, 3, 3, 3]"),
    ):
        on_cpu = learner.run(call_safely, "min_max", [x])
        if "error" in on_cpu:
            continue  # it fails on the CPU as well: the values tests report that
        what = Text(f'min_max(x) for {en} on "{device}"', f'min_max(x)（{zh}，位于 "{device}"）')
        got = expect_tensor(on_meta(learner, "min_max", [x.to(device)], what), what)
        assert_device(got, device, what)
