"""Hidden tests of exercise-01: creating tensors.

Pitfalls from the seeds: torch.Tensor(3) versus torch.tensor(3) (000 §2.1), integer versus float
defaults (001 §4.3), rand versus randn for weights (000 §2.2, 003 §1.2), creating tensors on the
device asked for (001 §3.6). The meta device stands in for a GPU on machines without one.
"""

import torch

from grader.spec import Text
from grader.testing import (
    assert_close,
    assert_device,
    assert_dtype,
    assert_shape,
    describe,
    describe_zh,
    device_of,
    expect_tensor,
    fail,
)
from grader.testing.distributions import normal_shape

GRIDS = [(2, 3), (1, 1), (4, 1), (1, 5), (3, 3)]
EMPTY_GRIDS = [(0, 4), (3, 0), (0, 0)]

# Each test judges one requirement: the values (row-major order), the dtype, empty grids, the
# default device and the requested device each have their own test, so one slip costs one of
# them. Values are compared whatever the dtype and device; those are judged on their own.


def _linspace_to_n(got, rows, cols):
    """Whether ``got`` is torch.linspace(0, n, n) laid out as (rows, cols), n = rows * cols:
    the end n included, so the step is n / (n - 1), not 1 (001 §3.4: linspace includes its
    end). With n = 1 that is [0], the right grid."""
    n = rows * cols
    if not isinstance(got, torch.Tensor) or got.device.type == "meta" or n < 2:
        return False
    if tuple(got.shape) != (rows, cols) or not got.dtype.is_floating_point:
        return False
    spaced = torch.linspace(0, n, n, dtype=torch.float64).reshape(rows, cols)
    return bool(torch.allclose(got.detach().cpu().double(), spaced, rtol=1e-5, atol=1e-5))


def test_make_grid_values(learner, reference, device):
    for rows, cols in GRIDS:
        got = learner.make_grid(rows, cols, device=device)
        if _linspace_to_n(got, rows, cols):
            n = rows * cols
            fail(
                f"make_grid({rows}, {cols}) holds {n} evenly spaced values from 0 to {n}, with "
                f"the step {n}/{n - 1}: torch.linspace(0, {n}, {n}) includes its end, {n}. The "
                f"grid counts 0, 1, ..., {n - 1}: torch.arange({n}) (its end excluded), or "
                f"torch.linspace(0, {n - 1}, {n}).",
                f"make_grid({rows}, {cols}) 是从 0 到 {n} 均匀分布的 {n} 个值，步长为 {n}/{n - 1}："
                f"torch.linspace(0, {n}, {n}) 包含终点 {n}。网格应为 0, 1, ..., {n - 1}："
                f"用 torch.arange({n})（不含终点），或 torch.linspace(0, {n - 1}, {n})。",
                evidence=["values_differ", "linspace_end_included"],
            )
        assert_close(
            got,
            reference.make_grid(rows, cols, device=device),
            f"make_grid({rows}, {cols})",
            rtol=0,
            atol=0,
            check_dtype=False,
            check_device=False,
        )


def test_make_grid_dtype(learner):
    for rows, cols in ((2, 3), (1, 1), (4, 5)):
        what = f'make_grid({rows}, {cols}, device="cpu")'
        got = expect_tensor(learner.make_grid(rows, cols, device="cpu"), what)
        if got.dtype != torch.float32 and not got.dtype.is_floating_point:
            fail(
                f"{what} should have dtype float32, but yours has dtype "
                f"{str(got.dtype).removeprefix('torch.')}: torch.arange of whole numbers gives "
                "int64. Ask for dtype=torch.float32.",
                f"{what} 的 dtype 应为 float32，但你的结果是 "
                f"{str(got.dtype).removeprefix('torch.')}：整数的 torch.arange 得到的是 int64。"
                "请指定 dtype=torch.float32。",
                evidence=["wrong_dtype", "integer_instead_of_float"],
            )
        _float64_story(got, what)
        assert_dtype(got, torch.float32, what)


def test_make_grid_empty(learner):
    # rows or cols may be 0: the grid is empty, but keeps its shape.
    for rows, cols in EMPTY_GRIDS:
        what = f'make_grid({rows}, {cols}, device="cpu")'
        got = expect_tensor(learner.make_grid(rows, cols, device="cpu"), what)
        assert_shape(got, (rows, cols), what)


def test_make_grid_default_device(learner):
    # The default must be the CPU: the same grid as the learner's own make_grid(2, 3, "cpu").
    what = Text("make_grid(2, 3) with the default device", "使用默认设备的 make_grid(2, 3)")
    got = expect_tensor(learner.make_grid(2, 3), what)
    assert_device(got, "cpu", what)
    explicit = expect_tensor(learner.make_grid(2, 3, device="cpu"), 'make_grid(2, 3, device="cpu")')
    if got.shape != explicit.shape or got.dtype != explicit.dtype or not torch.equal(got, explicit):
        fail(
            "make_grid(2, 3) with the default device should be the same grid as make_grid(2, 3, "
            f'device="cpu"), but yours gives {describe(got)} and {describe(explicit)}.',
            '使用默认设备的 make_grid(2, 3) 应当与 make_grid(2, 3, device="cpu") 完全相同，但你的结果分别是'
            f"{describe_zh(got)}和{describe_zh(explicit)}。",
            evidence=["values_differ"],
        )


def test_make_grid_on_requested_device(learner, device):
    # "meta" tensors have a device but no data: a grid made on the CPU and left there fails here
    # exactly as it would on a GPU. Only the device is judged here.
    what = f"make_grid(3, 4, device={device!r})"
    got = expect_tensor(learner.make_grid(3, 4, device=device), what)
    if torch.device(device_of(got)).type != torch.device(device).type:
        # the device is an argument here, not the device of an input tensor
        fail(
            f"{what} should be on {device}, but yours is on {device_of(got)}: make_grid creates "
            "its tensor on the device it is given. Pass it on to the creation function "
            "(torch.arange(..., device=device)); a device chosen inside the function ('cuda' if "
            "torch.cuda.is_available() else 'cpu', .cuda(), 'cpu') ignores the one asked for.",
            f"{what} 应该位于 {device}，但你的结果位于 {device_of(got)}：make_grid 要在传入的设备上"
            "创建张量。请把它传给创建函数（torch.arange(..., device=device)）；在函数内部自己选的设备"
            "（'cuda' if torch.cuda.is_available() else 'cpu'、.cuda()、'cpu'）会忽略要求的设备。",
            evidence=["wrong_device"],
        )
    assert_device(got, device, what)


SCALARS = (3, 2.5, -7, 0, 1e6)


def test_make_scalar(learner, reference):
    # 0-dimensional and equal to the value; the dtype is judged by test_make_scalar_dtype.
    for value in SCALARS:
        got = expect_tensor(learner.make_scalar(value), f"make_scalar({value!r})")
        if got.dim() != 0 and got.numel() == 1 and float(got.detach().cpu().flatten()[0]) == value:
            fail(
                f"make_scalar({value!r}) should be a 0-dimensional tensor (shape ()), but yours has "
                f"shape {tuple(got.shape)}: one element, but with a dimension of size 1. "
                "torch.tensor([value]) is a list of one number; torch.tensor(value) is the number.",
                f"make_scalar({value!r}) 应该是 0 维张量（形状为 ()），但你的结果形状为 "
                f"{tuple(got.shape)}：只有一个元素，却多了一个长度为 1 的维度。"
                "torch.tensor([value]) 是只含一个数的列表；torch.tensor(value) 才是这个数本身。",
                evidence=["wrong_shape", "size_one_dims"],
            )
        if got.dim() != 0:
            fail(
                f"make_scalar({value!r}) should be a 0-dimensional tensor (shape ()), but yours has "
                f"shape {tuple(got.shape)}. torch.Tensor(n) makes n uninitialised values; "
                "torch.tensor(value) makes a tensor holding value.",
                f"make_scalar({value!r}) 应该是 0 维张量（形状为 ()），但你的结果形状为 "
                f"{tuple(got.shape)}。torch.Tensor(n) 会创建 n 个未初始化的值；"
                "torch.tensor(value) 才会创建包含 value 的张量。",
                evidence=["wrong_shape", "tensor_constructor_trap"],
            )
        assert_close(
            got,
            reference.make_scalar(value),
            f"make_scalar({value!r})",
            rtol=0,
            atol=0,
            check_dtype=False,
        )


def _float64_story(got, what):
    """float64 where float32 was asked: name where a float64 comes from (dtype=float is Python's
    float, which torch reads as float64, as it does NumPy's default float arrays)."""
    if got.dtype == torch.float64:
        fail(
            f"{what} should have dtype float32, but yours has dtype float64: Python's float "
            "(dtype=float), torch.double and NumPy's default float (np.array(2.5), "
            "torch.from_numpy of it) all mean float64. Ask for dtype=torch.float32 (torch.float).",
            f"{what} 的 dtype 应为 float32，但你的结果是 float64：Python 的 float（dtype=float）、"
            "torch.double 以及 NumPy 默认的浮点数（np.array(2.5)，以及对它的 torch.from_numpy）都表示 "
            "float64。请指定 dtype=torch.float32（即 torch.float）。",
            evidence=["wrong_dtype", "float64_instead_of_float32"],
        )


def test_make_scalar_dtype(learner):
    # Whole numbers and floats alike give float32 (torch.tensor(3) alone is int64).
    for value in (3, 0, 2.5, 1e6):
        what = f"make_scalar({value!r})"
        got = expect_tensor(learner.make_scalar(value), what)
        _float64_story(got, what)
        assert_dtype(got, torch.float32, what)


def test_init_weights_shape_and_dtype(learner):
    for fan_in, fan_out in ((3, 5), (1, 1), (16, 4)):
        what = f"init_weights({fan_in}, {fan_out}, generator)"
        got = expect_tensor(
            learner.init_weights(fan_in, fan_out, torch.Generator().manual_seed(0)), what
        )
        if fan_in != fan_out and tuple(got.shape) == (fan_out, fan_in):
            fail(
                f"{what} should have shape ({fan_in}, {fan_out}), (fan_in, fan_out), but yours "
                f"has shape ({fan_out}, {fan_in}): fan_in and fan_out the other way round, as "
                "nn.Linear stores its weight (out_features, in_features). (fan_in, fan_out) is the "
                "layout of x @ W, with x of shape (batch, fan_in): "
                "torch.randn(fan_in, fan_out, generator=generator).",
                f"{what} 的形状应为 ({fan_in}, {fan_out})，即 (fan_in, fan_out)，但你的结果形状为 "
                f"({fan_out}, {fan_in})：fan_in 和 fan_out 的顺序反了，这是 nn.Linear 存放权重的方式"
                "(out_features, in_features)。(fan_in, fan_out) 是 x @ W 所用的布局，其中 x 的形状为 "
                "(batch, fan_in)：torch.randn(fan_in, fan_out, generator=generator)。",
                evidence=["wrong_shape", "dims_permuted", "fan_in_out_swapped"],
            )
        assert_shape(got, (fan_in, fan_out), what)
        assert_dtype(got, torch.float32, what)


# The shape of the distribution (grader.testing.distributions): the KS distance, the
# Anderson-Darling statistic, the skewness and the excess kurtosis of the standardised weights,
# each within what a normal sample of this size gives. Symmetric look-alikes with the right mean
# and spread (uniform, triangular, Laplace, logistic, Student's t, sums of uniforms, mixtures of
# normals) fail; a correct init_weights fails with a chance below 1e-7. 512 x 512 weights,
# drawn with a fixed generator: the same verdict every run.
SAMPLE = (512, 512)


def _check_centre_and_spread(values, what):
    """Fail when ``values`` (float64, CPU) are not centred on 0 or not spread by 0.01. Whether
    they are centred is judged against their own spread: the weights of a wrong scale
    (randn unscaled, or / 0.01 for * 0.01) are normal and centred, and their sample mean grows
    with the scale; only an off-centre mean for that spread, or too few negative values, points
    to torch.rand."""
    mean, std, negative = (
        float(values.mean()),
        float(values.std()),
        float((values < 0).double().mean()),
    )
    if values.numel() and bool((values == values.flatten()[0]).all()):
        fail(
            f"{what} should draw random weights, but every one of yours is {mean:g}: a constant "
            "(torch.zeros, torch.ones, torch.full) is no random draw. Draw them with "
            "torch.randn(fan_in, fan_out, generator=generator) and multiply by 0.01.",
            f"{what} 应该随机采样权重，但你的每个权重都是 {mean:g}：常数（torch.zeros、torch.ones、"
            "torch.full）不是随机采样。请用 torch.randn(fan_in, fan_out, generator=generator) 采样，"
            "再乘以 0.01。",
            evidence=["values_differ", "constant_weights"],
        )
    if negative < 0.3 or abs(mean) > 0.2 * std:
        fail(
            f"init_weights should draw from a normal distribution centred on 0, but your weights "
            f"have mean {mean:.4f} and {negative:.0%} of them are negative. torch.rand is uniform "
            "on [0, 1); torch.randn is the standard normal.",
            f"init_weights 应该从以 0 为中心的正态分布中采样，但你的权重均值为 {mean:.4f}，"
            f"其中只有 {negative:.0%} 为负数。torch.rand 是 [0, 1) 上的均匀分布；torch.randn 才是标准正态分布。",
            evidence=["uniform_instead_of_normal"],
        )
    if not 0.009 < std < 0.011:
        as_mean = _scale_as_mean(mean, std, values.numel())
        centred = abs(mean) <= 4 * std / max(values.numel(), 1) ** 0.5
        # a standard normal times a constant: centred, and of the normal's shape (judged on the
        # standardised weights, so the scale itself does not count)
        scaled = centred and not as_mean and not normal_shape(values).departures()
        fail(
            f"init_weights should have a standard deviation of 0.01, but yours is {std:.4g}"
            f"{_scale_story(std, mean, as_mean, centred)}.",
            f"init_weights 的标准差应为 0.01，但你的结果是 {std:.4g}"
            f"{_scale_story_zh(std, mean, as_mean, centred)}。",
            evidence=[
                "values_differ",
                "wrong_scale",
                *(["scale_as_mean"] if as_mean else []),
                *(["normal_wrong_scale"] if scaled else []),
            ],
        )
    return mean, std


def _near(std, scale):
    """Whether a sample standard deviation is ``scale``, within 5% (512 x 512 normal draws
    give their std within 0.5%, so 0.1 and 0.0442 are never taken for each other)."""
    return abs(std - scale) < 0.05 * scale


def _scale_as_mean(mean, std, n):
    """Whether the weights are standard normal shifted by 0.01: 0.01 given as the mean
    (normal_(0.01), torch.normal(0.01, 1.0, ...)), not as the spread. Judged against the
    standard error of the mean: within 3 of 0.01 and more than 4 away from 0 (for 512 x 512
    weights, 0.01 is about 5 standard errors from 0), so an unscaled randn is not told this."""
    if not (0.9 < std < 1.1 and n > 1):
        return False
    se = std / n**0.5
    return abs(mean - 0.01) < 3 * se and abs(mean) > 4 * se


def _scale_story(std, mean=0.0, as_mean=False, centred=True):
    if as_mean:
        return (
            f": your weights are centred on {mean:.4f}, so 0.01 went in as the mean and the "
            "spread stayed 1. torch.normal(mean, std, ...) and normal_(mean, std) take the mean "
            "first: torch.normal(0.0, 0.01, size=(fan_in, fan_out), generator=generator), or "
            "torch.randn(..., generator=generator) * 0.01"
        )
    if 0.9 < std < 1.1 and centred:
        return ": the standard normal itself, the * 0.01 left out"
    if 90 < std < 110:
        return ": divided by 0.01 (times 100) where it should be multiplied by 0.01"
    if not centred:
        return ""
    if _near(std, 0.1):
        return (
            ": ten times 0.01. 0.1 is the square root of 0.01 (a * math.sqrt(0.01), or a * 0.1): "
            "0.01 is the standard deviation itself, not a variance to take the root of, so "
            "multiply by 0.01 as it is"
        )
    if _near(std, 1e-4):
        return ": 0.01 squared (0.01 ** 2). The standard deviation is 0.01 itself: multiply by 0.01 once"
    if _near(std, SAMPLE[0] ** -0.5) or _near(std, (2 / SAMPLE[0]) ** 0.5):
        return (
            ": a scale from fan_in (1 / sqrt(fan_in), or sqrt(2 / fan_in)), as in Xavier or He "
            "initialisation. This exercise asks for the fixed scale 0.01, whatever the shape"
        )
    return (
        f": your weights are normal and centred, but scaled by about {std:.3g} where 0.01 was "
        "asked. torch.randn has standard deviation 1, and multiplying by c makes it c: multiply "
        "by 0.01"
    )


def _scale_story_zh(std, mean=0.0, as_mean=False, centred=True):
    if as_mean:
        return (
            f"：你的权重以 {mean:.4f} 为中心，说明 0.01 被当成了均值，而离散程度仍是 1。"
            "torch.normal(mean, std, ...) 和 normal_(mean, std) 的第一个参数是均值："
            "torch.normal(0.0, 0.01, size=(fan_in, fan_out), generator=generator)，"
            "或 torch.randn(..., generator=generator) * 0.01"
        )
    if 0.9 < std < 1.1 and centred:
        return "：这就是标准正态分布本身，漏乘了 0.01"
    if 90 < std < 110:
        return "：除以了 0.01（即乘以 100），而应该乘以 0.01"
    if not centred:
        return ""
    if _near(std, 0.1):
        return (
            "：是 0.01 的十倍。0.1 是 0.01 的平方根（* math.sqrt(0.01) 或 * 0.1）："
            "0.01 本身就是标准差，而不是要开方的方差，所以直接乘以 0.01"
        )
    if _near(std, 1e-4):
        return "：是 0.01 的平方（0.01 ** 2）。标准差就是 0.01 本身：只乘一次 0.01"
    if _near(std, SAMPLE[0] ** -0.5) or _near(std, (2 / SAMPLE[0]) ** 0.5):
        return (
            "：这是由 fan_in 算出的尺度（1 / sqrt(fan_in) 或 sqrt(2 / fan_in)），如 Xavier 或 He "
            "初始化。本练习要求固定的尺度 0.01，与形状无关"
        )
    return (
        f"：你的权重是以 0 为中心的正态分布，但缩放了约 {std:.3g} 倍，而要求的是 0.01。"
        "torch.randn 的标准差为 1，乘以 c 后标准差就是 c：请乘以 0.01"
    )


def test_init_weights_distribution(learner):
    what = f"init_weights({SAMPLE[0]}, {SAMPLE[1]}, generator)"
    got = expect_tensor(
        learner.init_weights(*SAMPLE, torch.Generator().manual_seed(1)),
        what,
    )
    values = got.detach().cpu().double()
    mean, std = _check_centre_and_spread(values, what)
    departures = normal_shape(values).departures()
    if departures:
        why_en = "; ".join(d.message.en for d in departures)
        why_zh = "；".join(d.message.zh for d in departures)
        fail(
            f"{what} should draw from a normal distribution: your weights have mean {mean:.4f} "
            f"and standard deviation {std:.4f}, but their distribution has another shape: "
            f"{why_en}. Shifted and scaled uniform numbers, (torch.rand(...) - 0.5) * sqrt(12), "
            "or other look-alikes have the right mean and spread but are not normal: draw with "
            "torch.randn(..., generator=generator) and multiply by 0.01.",
            f"{what} 应该从正态分布中采样：你的权重均值为 {mean:.4f}、标准差为 {std:.4f}，"
            f"但分布的形状不对：{why_zh}。平移、缩放后的均匀分布随机数 "
            "(torch.rand(...) - 0.5) * sqrt(12) 或其他相似的分布均值和离散程度都对，但并不是"
            "正态分布：请用 torch.randn(..., generator=generator) 采样，再乘以 0.01。",
            evidence=["values_differ", "not_normal"],
        )


def generator_run(module, seed):
    # Runs in the learner's process and only collects: the weights for two fresh generators of
    # the same seed (under different global random states) and one of another seed, and the
    # random states around the second call. Every comparison is made by the hidden test, in the
    # grader's process. Any draw order is fine (randn(out, in).T is correct too).
    torch.manual_seed(1234)
    first = module.init_weights(4, 3, torch.Generator().manual_seed(seed))
    torch.manual_seed(5678)
    global_before = torch.get_rng_state()
    generator = torch.Generator().manual_seed(seed)
    second = module.init_weights(4, 3, generator)
    global_after = torch.get_rng_state()
    other_generator = torch.Generator().manual_seed(seed + 1)
    other = module.init_weights(4, 3, other_generator)
    weights = [
        t.detach().cpu().double().clone() if isinstance(t, torch.Tensor) else None
        for t in (first, second, other)
    ]
    return {
        "weights": weights,
        "global_before": global_before,
        "global_after": global_after,
        "generator_after": generator.get_state(),
        "other_generator_after": other_generator.get_state(),
    }


def _same(a, b):
    return (
        isinstance(a, torch.Tensor)
        and isinstance(b, torch.Tensor)
        and a.shape == b.shape
        and a.dtype == b.dtype
        and bool(torch.equal(a, b))
    )


def _generator_checks(got, seed):
    """The scenario's verdicts, computed here from what it collected: anything that is not
    what the scenario collects counts as the check failing."""
    weights = got.get("weights") if isinstance(got, dict) else None
    if not isinstance(weights, list) or len(weights) != 3:
        weights = [None, None, None]
    first, second, other = weights
    tensors = all(isinstance(t, torch.Tensor) for t in weights)
    fresh = torch.Generator().manual_seed(seed).get_state()
    after = got.get("generator_after") if isinstance(got, dict) else None
    other_after = got.get("other_generator_after") if isinstance(got, dict) else None
    advanced = isinstance(after, torch.Tensor) and not _same(after, fresh)
    return {
        "tensors": tensors,
        "same_state_same_weights": tensors and _same(first, second),
        "other_seed_differs": tensors and not _same(first, other),
        "advanced": advanced,
        # Generators of two seeds left in one state, having given the same weights: the
        # function set the generator's state itself (generator.manual_seed(42) before drawing).
        "reseeded": tensors and advanced and _same(first, other) and _same(after, other_after),
        "global_untouched": isinstance(got, dict)
        and _same(got.get("global_after"), got.get("global_before")),
    }


def test_init_weights_uses_generator(learner):
    for seed in (0, 7):
        got = _generator_checks(learner.run(generator_run, seed), seed)
        if not got["tensors"]:
            # the type is judged (with its own message) by the other init_weights tests
            expect_tensor(
                learner.init_weights(4, 3, torch.Generator().manual_seed(seed)),
                "init_weights(4, 3, generator)",
            )
        uses = (
            got["same_state_same_weights"]
            and got["other_seed_differs"]
            and got["advanced"]
            and got["global_untouched"]
        )
        if not uses and got["reseeded"]:
            fail(
                "init_weights(4, 3, generator) should draw from `generator` as the caller seeded "
                f"it, but yours gave the same weights for generators seeded with {seed} and "
                f"{seed + 1}, and left both in the same state: your code seeds the generator "
                "itself (generator.manual_seed(...)), which throws away the caller's seed and "
                "restarts their random stream. Do not reseed the generator you are given; only "
                "draw from it: torch.randn(..., generator=generator).",
                "init_weights(4, 3, generator) 应该按调用者设定的种子从 `generator` 采样，但你的结果"
                f"对种子为 {seed} 和 {seed + 1} 的两个生成器给出了相同的权重，并让二者停在同一个状态："
                "你的代码自己给生成器设了种子（generator.manual_seed(...)），这会丢掉调用者的种子，"
                "并让他们的随机数序列从头开始。不要给传入的生成器重新设种子，只从中采样："
                "torch.randn(..., generator=generator)。",
                evidence=["reseeds_generator"],
            )
        if not uses:
            fail(
                "init_weights(4, 3, generator) should draw its numbers from `generator` (pass "
                "generator=generator), so the same generator state always gives the same weights "
                "whatever the global random state; yours "
                + (
                    "gave other weights for the same generator state"
                    if not got["same_state_same_weights"]
                    else "did not draw from the generator"
                    if not got["advanced"] or not got["other_seed_differs"]
                    else "changed the global random state"
                )
                + ".",
                "init_weights(4, 3, generator) 应该用 `generator` 采样（传入 generator=generator），"
                "这样无论全局随机状态如何，相同的生成器状态总会得到相同的权重；你的结果"
                + (
                    "在相同的生成器状态下给出了不同的权重"
                    if not got["same_state_same_weights"]
                    else "没有从生成器中采样"
                    if not got["advanced"] or not got["other_seed_differs"]
                    else "改变了全局随机状态"
                )
                + "。",
                evidence=["ignores_generator"],
            )
