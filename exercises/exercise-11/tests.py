"""Hidden tests of exercise-11: the dtype bugs.

Pitfalls from the seeds, each with the tests that catch it:
- mean() refuses integer tensors ("could not infer output dtype"), and arithmetic on a uint8
  tensor stays uint8: it wraps around past 255 and // drops the fraction (000 §8.3, 001 §4.3):
  test_mean_brightness_values and test_mean_brightness_pixel_levels (constant images whose
  brightness is known exactly, so integer arithmetic shows);
- float64 where float32 is wanted: .double(), or NumPy's float64 carried over by
  torch.from_numpy, which nn.Linear's float32 weights refuse (000 §6.3):
  test_prepare_batch_features and the scenario test_prepare_batch_feeds_a_classifier;
- class labels must be int64 for cross_entropy; NumPy's int32 (or floats) are refused
  (000 §6.3, 000 §3.2): test_prepare_batch_labels and the same scenario.
Inputs come contiguous, transposed and sliced; mean_brightness also runs on the meta device, which
catches tensors created on the CPU on machines without a GPU.

Each test judges one requirement (see `requirements` in exercise.yaml): the brightness tests
judge the values, test_mean_brightness_float32 the dtype and test_mean_brightness_on_device the
device; the layout tests compare the learner on views with the same learner on contiguous
copies, the empty batch is compared with the same learner's result for a non-empty one, and only
test_leaves_inputs_alone judges that the inputs are left alone (input_check is off elsewhere).
"""

import ast
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from grader.spec import Text
from grader.testing import (
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_shape,
    assert_type,
    assert_value,
    expect_tensor,
    fail,
    names,
    on_meta,
    paired_heads,
)

IMAGE_SHAPES = [(4, 8, 8), (1, 5, 7), (3, 1, 1), (2, 28, 28), (5, 3, 16)]
BATCHES = [(6, 3, 4), (1, 5, 2), (32, 10, 3), (0, 4, 3)]  # (n, d, classes)


def _images(shape, rng):
    return torch.randint(0, 256, shape, generator=rng, dtype=torch.uint8)


def _arrays(rng, n, d, classes):
    """float64 features and int32 labels, as a NumPy pipeline would produce them."""
    features = torch.randn(n, d, generator=rng, dtype=torch.float64).numpy()
    labels = torch.randint(0, classes, (n,), generator=rng).numpy().astype(np.int32)
    return features, labels


def _kept_batch(got, want, what):
    """Name a batch of one that lost its dimension: a squeeze() with no dim removes it too."""
    we, wz = names(what)
    if want.dim() >= 1 and want.shape[0] == 1 and tuple(got.shape) == tuple(want.shape[1:]):
        shape = tuple(want.shape)
        fail(
            f"{we} should have shape {shape}, but yours has shape {tuple(got.shape)}: with a "
            "batch of one, a squeeze() with no dim removes the batch dimension too (it removes "
            "every dimension of size 1). Leave the batch dimension alone: drop the squeeze(), "
            "or name the dimension you mean, squeeze(dim).",
            f"{wz} 的形状应为 {shape}，但你的结果形状为 {tuple(got.shape)}：批次里只有一个样本时，"
            "不带 dim 的 squeeze() 会把批次这一维也删掉（它删除所有长度为 1 的维度）。请保留批次维度："
            "去掉 squeeze()，或指明你要删除的维度 squeeze(dim)。",
            evidence=["wrong_shape", "squeezed_too_much"],
        )


def _whole_batch_mean(got, images, want, what):
    """Name a mean over every pixel of the batch: one number where one per image was asked."""
    we, wz = names(what)
    if got.dim() != 0 or want.dim() != 1 or got.device.type == "meta":
        return
    overall = images.detach().cpu().double().mean() / 255  # nan for an empty batch
    if not torch.isclose(
        got.detach().cpu().double(), overall, rtol=1e-5, atol=1e-6, equal_nan=True
    ):
        return
    fail(
        f"{we} should have shape {tuple(want.shape)}, one brightness per image, but yours is a "
        f"single number, {float(overall):.6g}: the mean of every pixel of the whole batch. "
        "mean() with no dim reduces over every dimension; average over each image's height and "
        "width only: images.float().mean(dim=(1, 2)) / 255.",
        f"{wz} 的形状应为 {tuple(want.shape)}，每张图像一个亮度，但你的结果只是一个数 "
        f"{float(overall):.6g}：整批所有像素的平均值。不带 dim 的 mean() 会对所有维度归约；"
        "请只在每张图像的高和宽上求平均：images.float().mean(dim=(1, 2)) / 255。",
        evidence=["wrong_shape", "reduced_all_dims"],
    )


def _check_scaled(theirs, ours, what):
    """Name the missing division by 255, or a multiplication by 255 in its place."""
    we, wz = names(what)
    if torch.allclose(theirs, ours * 255, rtol=1e-5, atol=1e-4):
        yours, expected = paired_heads(theirs, ours)
        fail(
            f"{we}: your values are mean pixel levels ({yours}), not brightness in "
            f"[0, 1] (expected {expected}): divide by 255.",
            f"{wz}：你的结果是平均像素值（{yours}），而不是 [0, 1] 之间的亮度"
            f"（期望 {expected}）：请除以 255。",
            evidence=["values_differ", "not_scaled"],
        )
    nonzero = ours.abs() > 1e-9
    if bool(nonzero.any()) and torch.allclose(theirs, ours * 255 * 255, rtol=1e-5, atol=1e-4):
        yours, expected = paired_heads(theirs, ours)
        fail(
            f"{we}: your values ({yours}) are the mean pixel levels times 255, 255 * 255 = 65025 "
            f"times the brightness (expected {expected}): the mean was multiplied by 255 where "
            "it must be divided. Brightness in [0, 1] is the mean pixel level / 255.",
            f"{wz}：你的结果（{yours}）是平均像素值乘以 255，即亮度的 255 * 255 = 65025 倍"
            f"（期望 {expected}）：本该除以 255 的地方乘了 255。[0, 1] 之间的亮度是平均像素值 / 255。",
            evidence=["values_differ", "multiplied_not_divided"],
        )


def _summed(theirs, ours, images, what):
    """Name a sum of the pixels where a mean was due: every value is the expected one times
    the number of pixels of an image (H * W)."""
    we, wz = names(what)
    pixels = images.shape[1] * images.shape[2] if images.dim() == 3 else 0
    nonzero = ours.abs() > 1e-9
    if pixels < 2 or not bool(nonzero.any()):
        return
    if torch.allclose(theirs, ours * pixels, rtol=1e-5, atol=1e-4):
        yours, expected = paired_heads(theirs, ours)
        fail(
            f"{we}: your values ({yours}) are {pixels} times the expected ones ({expected}), "
            f"{pixels} being the number of pixels in an image (H * W): the pixels were summed, "
            "not averaged. Take the mean: images.float().mean(dim=(1, 2)) / 255.",
            f"{wz}：你的结果（{yours}）是期望值（{expected}）的 {pixels} 倍，{pixels} 正是一张图像"
            "的像素个数（H * W）：像素被求和了，而不是求平均。请求平均值：images.float().mean("
            "dim=(1, 2)) / 255。",
            evidence=["values_differ", "summed_not_averaged"],
        )


def _pixel_scale(theirs, ours, what):
    """Name a division by another number than 255 (most often 256, the number of levels): every
    value is the expected one times 255/k, for one whole k."""
    we, wz = names(what)
    nonzero = ours.abs() > 1e-9
    if int(nonzero.sum()) < 2 or bool((theirs[~nonzero].abs() > 1e-9).any()):
        return
    r = float((theirs[nonzero] / ours[nonzero]).median())
    if not math.isfinite(r) or r <= 0:
        return
    k = round(255 / r)
    if k < 2 or k == 255 or abs(255 / r - k) > 1e-4 * k:
        return
    if not torch.allclose(theirs, ours * 255 / k, rtol=1e-5, atol=1e-7):
        return
    levels_en, levels_zh = (
        (
            " (a uint8 pixel has 256 levels, 0 to 255, and the brightest is 255: divided by "
            "256, an all-white image is not 1.0)",
            "（uint8 像素有 256 个级别，从 0 到 255，最亮的是 255：除以 256 时，全白图像的亮度不是 1.0）",
        )
        if k == 256
        else ("", "")
    )
    yours, expected = paired_heads(theirs, ours)
    fail(
        f"{we}: every value of yours is the expected one times 255/{k} = {255 / k:.6g} (yours "
        f"{yours}, expected {expected}): your code divides by {k}. Brightness "
        f"divides the mean pixel by 255, the largest value a uint8 pixel holds{levels_en}. "
        "Divide by 255.",
        f"{wz}：你的每个值都正好是期望值乘以 255/{k} = {255 / k:.6g}（你的结果 {yours}，"
        f"期望 {expected}）：你的代码除以了 {k}。亮度是平均像素值除以 255，即 uint8 像素能取的"
        f"最大值{levels_zh}。请除以 255。",
        evidence=["values_differ", "wrong_pixel_scale"],
    )


def _same(a, b):
    return a.shape == b.shape and bool(
        torch.isclose(a, b, rtol=1e-5, atol=1e-6, equal_nan=True).all()
    )


def _integer_replay(theirs, images):
    """Whether ``theirs`` is what integer arithmetic on the pixels gives: the mean level rounded
    down (// or a mean taken on integers), or a uint8 product that wrapped around past 255
    (images * m, then / 255 and / m)."""
    x = images.detach().cpu().to(torch.int64)
    if x.dim() != 3 or not x.numel():
        return False
    count = x.shape[1] * x.shape[2]
    floored = torch.div(x.sum(dim=(1, 2)), count, rounding_mode="floor").double() / 255
    if _same(theirs, floored):
        return True
    return any(
        _same(theirs, ((x * m) % 256).double().mean(dim=(1, 2)) / 255 / m) for m in range(2, 256)
    )


def _integer_arithmetic(theirs, ours, images, what):
    """Name integer arithmetic on the pixels where it reproduces the learner's values exactly."""
    we, wz = names(what)
    if not _integer_replay(theirs, images):
        return
    yours, expected = paired_heads(theirs, ours)
    fail(
        f"{we}: your values ({yours}) are exactly what integer arithmetic on the "
        f"pixels gives (expected {expected}). Arithmetic on a uint8 tensor stays uint8: "
        "results above 255 wrap around (200 * 2 gives 144) and // drops the fraction. Convert "
        "to float (images.float()) before any arithmetic.",
        f"{wz}：你的结果（{yours}）正好是对像素做整数运算得到的值（期望 {expected}）。"
        "uint8 张量的运算结果仍是 uint8：超过 255 会回绕（200 * 2 得到 144），// 会丢掉小数部分。"
        "请在做任何运算之前先转换为浮点数（images.float()）。",
        evidence=["values_differ", "integer_pixel_arithmetic"],
    )


_LOW_PRECISION = (torch.float16, torch.bfloat16)


def _low_precision_dtype(got, theirs, ours, images):
    """The low-precision float (float16, bfloat16) whose rounding explains every difference:
    the answer's own dtype, or one whose replay of the mean the answer equals; else None."""
    if got.dtype in _LOW_PRECISION:
        eps = torch.finfo(got.dtype).eps
        if torch.allclose(theirs, ours, rtol=4 * eps, atol=1e-6):
            return got.dtype
        return None
    if images.device.type == "meta" or not images.numel():
        return None
    x = images.detach().cpu()
    for dtype in _LOW_PRECISION:
        low = x.to(dtype)
        for replay in (low.mean(dim=(1, 2)) / 255, (low / 255).mean(dim=(1, 2))):
            if _same(theirs, replay.double()):
                return dtype
    return None


def _low_precision(got, theirs, ours, images, what):
    """Name float16 (or bfloat16) rounding where the evidence shows it (see
    _low_precision_dtype)."""
    we, wz = names(what)
    dtype = _low_precision_dtype(got, theirs, ours, images)
    if dtype is None:
        return
    kind = str(dtype).removeprefix("torch.")
    method = ".half()" if dtype == torch.float16 else ".bfloat16()"
    i = int((~torch.isclose(theirs, ours, rtol=1e-5, atol=1e-6)).nonzero()[0])
    fail(
        f"{we}: your values differ from the expected ones by {kind} rounding only (at index "
        f"[{i}], yours is {theirs[i]:.6g}, expected {ours[i]:.6g}): the mean was computed in "
        f"{kind}, which keeps about 3 significant decimal digits. Convert to float32 with "
        f"images.float(), not {method}, before the mean.",
        f"{wz}：你的结果与期望值的差别只是 {kind} 的舍入误差（下标 [{i}] 处，你的结果为 "
        f"{theirs[i]:.6g}，期望 {ours[i]:.6g}）：平均值是在 {kind} 下计算的，它只保留大约 3 位有效"
        f"十进制数字。请在求平均之前用 images.float() 转换为 float32，而不是 {method}。",
        evidence=["values_differ", "low_precision_float"],
    )


def _other_dims(got, images, what):
    """Name a mean over the wrong dims: the answer is images' mean over other dims than the
    height and width, divided by 255 (every dim at once is _whole_batch_mean's)."""
    we, wz = names(what)
    if got.device.type == "meta" or images.dim() != 3 or got.dim() == 0:
        return
    x = images.detach().cpu().double()
    theirs = got.detach().cpu().double()
    for dims in ((0,), (1,), (2,), (0, 1), (0, 2)):
        mean = x.mean(dim=dims) / 255
        if mean.shape != theirs.shape or not _same(theirs, mean):
            continue
        shape = tuple(mean.shape)
        fail(
            f"{we} should have shape ({images.shape[0]},), one brightness per image, but yours "
            f"has shape {shape}: it is the mean over dims {dims} of images of shape "
            f"{tuple(images.shape)}. dim names the dims that disappear; an image's pixels are "
            "its height and width, dims 1 and 2: images.float().mean(dim=(1, 2)) / 255.",
            f"{wz} 的形状应为 ({images.shape[0]},)，每张图像一个亮度，但你的结果形状为 {shape}："
            f"它是形状为 {tuple(images.shape)} 的 images 沿维度 {dims} 的平均值。dim 指定的是被消去的"
            "维度；一张图像的像素在高和宽上，即第 1、2 维：images.float().mean(dim=(1, 2)) / 255。",
            evidence=["wrong_shape", "reduced_wrong_dim"],
        )


def _divided_by_max(theirs, ours, images, what):
    """Name a mean divided by the largest pixel (of the batch, images.max(), or of each image)
    where 255, the largest level a uint8 pixel can hold, was due: only where that replay gives
    every value of the answer and differs from the brightness."""
    if images.device.type == "meta" or images.dim() != 3 or not images.numel():
        return
    we, wz = names(what)
    x = images.detach().cpu().double()
    means = x.mean(dim=(1, 2))
    for top, top_en, top_zh in (
        (
            x.max(),
            "the largest pixel of the whole batch (images.max())",
            "整批图像中最大的像素（images.max()）",
        ),
        (
            x.amax(dim=(1, 2)),
            "each image's own largest pixel (images.amax(dim=(1, 2)))",
            "每张图像自己最大的像素（images.amax(dim=(1, 2))）",
        ),
    ):
        replay = means / top
        if _same(replay, ours) or not _same(theirs, replay):
            continue
        yours, expected = paired_heads(theirs, ours)
        fail(
            f"{we}: your values ({yours}) are the mean pixel divided by {top_en}, not by 255 "
            f"(expected {expected}). Brightness is on "
            "a fixed scale: 0 is black and 255, the largest level a uint8 pixel holds, is white, "
            "whatever the pixels of this batch. Divide by 255.",
            f"{wz}：你的结果（{yours}）是平均像素值除以{top_zh}，而不是除以 255（期望 {expected}）。"
            "亮度有固定的刻度：0 是黑，255（uint8 像素能取的最大值）"
            "是白，与这批图像的像素无关。请除以 255。",
            evidence=["values_differ", "divided_by_data_max"],
        )


def _name_the_difference(got, theirs, ours, images, what):
    """The stories of a wrong brightness, each only where it reproduces the answer exactly."""
    _check_scaled(theirs, ours, what)
    # before the division by a whole k: where the data's largest pixel is k, that is why
    _divided_by_max(theirs, ours, images, what)
    _pixel_scale(theirs, ours, what)
    _integer_arithmetic(theirs, ours, images, what)
    _low_precision(got, theirs, ours, images, what)


def _compare_brightness(got, want, what, images):
    """The learner's brightness against the reference's, naming integer arithmetic when it shows."""
    we, wz = names(what)
    got = expect_tensor(got, what)
    _kept_batch(got, want, what)
    _whole_batch_mean(got, images, want, what)
    _other_dims(got, images, what)
    assert_shape(got, want.shape, what)
    ours, theirs = want.detach().cpu().double(), got.detach().cpu().double()
    if theirs.numel() and not torch.allclose(theirs, ours, rtol=1e-5, atol=1e-6):
        _check_scaled(theirs, ours, what)
        _summed(theirs, ours, images, what)
        levels = theirs * 255
        whole = bool(((levels - levels.round()).abs() < 1e-3).all())
        # a mean that lost its fraction is within one level of the true mean, and a mean // 255
        # is the brightness floored (a sum of the pixels is whole levels too, far from both)
        near = bool(((levels - ours * 255).abs() < 1 + 1e-3).all()) or bool(
            ((theirs - torch.floor(ours + 1e-9)).abs() < 1e-6).all()
        )
        if whole and near and not bool((((ours * 255) - (ours * 255).round()).abs() < 1e-3).all()):
            yours, expected = paired_heads(theirs, ours)
            fail(
                f"{we}: your brightness values are whole pixel levels divided by 255 ({yours}), "
                f"but the means are not whole numbers (expected {expected}). Integer division (//) or "
                "a mean computed on integers drops the fraction; convert the pixels to float first.",
                f"{wz}：你的亮度值都是整数像素级别除以 255（{yours}），但平均值并不是整数"
                f"（期望 {expected}）。整数除法（//）或在整数上求平均会丢掉小数部分；请先把像素转换为浮点数。",
                evidence=["values_differ", "integer_pixel_arithmetic"],
            )
        _name_the_difference(got, theirs, ours, images, what)
    # Values only: the dtype and the device have their own tests.
    assert_close(got, want, what, check_dtype=False, check_device=False)


def test_mean_brightness_values(learner, reference, device, rng):
    for shape in IMAGE_SHAPES:
        images = _images(shape, rng).to(device)
        what = Text(
            f"mean_brightness(images) for uint8 images of shape {shape}",
            f"mean_brightness(images)（images 是形状为 {shape} 的 uint8 张量）",
        )
        _compare_brightness(
            learner.mean_brightness(images), reference.mean_brightness(images), what, images
        )


def test_mean_brightness_pixel_levels(learner, reference, device):
    # Constant images have an exactly known brightness (level / 255); the last two images have
    # means that are not whole levels (127.5 and 255 / 16).
    levels = [0, 1, 64, 127, 128, 200, 254, 255]
    images = torch.tensor(levels, dtype=torch.uint8).view(-1, 1, 1).expand(-1, 4, 4).clone()
    half = torch.zeros(1, 4, 4, dtype=torch.uint8)
    half[0, :, ::2] = 255
    one = torch.zeros(1, 4, 4, dtype=torch.uint8)
    one[0, 2, 1] = 255
    images = torch.cat([images, half, one]).to(device)
    what = Text(
        "mean_brightness(images) for images whose pixels all equal 0, 1, 64, ..., 255",
        "mean_brightness(images)（images 中各图像的像素分别全为 0、1、64、……、255）",
    )
    we, wz = names(what)
    got = expect_tensor(learner.mean_brightness(images), what)
    want = reference.mean_brightness(images)
    _whole_batch_mean(got, images, want, what)
    _other_dims(got, images, what)
    assert_shape(got, want.shape, what)
    theirs, ours = got.detach().cpu().double(), want.detach().cpu().double()
    bad = ~torch.isclose(theirs, ours, rtol=1e-5, atol=1e-6)
    if bool(bad.any()):
        _name_the_difference(got, theirs, ours, images, what)
        i = int(bad.nonzero()[0])
        if i < len(levels):
            image_en = f"an image whose every pixel is {levels[i]}"
            image_zh = f"每个像素都等于 {levels[i]} 的图像"
        elif i == len(levels):
            image_en, image_zh = (
                "an image of half 0 and half 255 pixels",
                "一半像素为 0、一半为 255 的图像",
            )
        else:
            image_en = "an image of 16 pixels, one of them 255 and the others 0"
            image_zh = "16 个像素中只有一个为 255、其余为 0 的图像"
        # No story reproduces the answer: the numbers alone, and no diagnosis.
        fail(
            f"{we}: for {image_en} the brightness is {ours[i]:.6g}, but yours is {theirs[i]:.6g}.",
            f"{wz}：对于{image_zh}，亮度应为 {ours[i]:.6g}，但你的结果是 {theirs[i]:.6g}。",
            evidence=["values_differ"],
        )
    assert_close(got, want, what, check_dtype=False, check_device=False)


def test_mean_brightness_any_layout(learner, device, rng):
    # The learner on views against the same learner on contiguous copies of the same pixels.
    for b, h, w in [(3, 6, 5), (2, 1, 9), (4, 7, 7)]:
        transposed = _images((b, w, h), rng).to(device).transpose(1, 2)
        cropped = _images((b, h + 2, 2 * w), rng).to(device)[:, 1:-1, ::2]
        for (en, zh), images in (
            (("a transposed view", "转置得到的视图"), transposed),
            (("a sliced view", "切片得到的视图"), cropped),
        ):
            what = Text(
                f"mean_brightness(images) for images that are {en} of shape {(b, h, w)}, against "
                "your own result for images.contiguous()",
                f"mean_brightness(images)（images 是形状为 {(b, h, w)} 的{zh}），与你自己对 "
                "images.contiguous() 的结果相比",
            )
            want = expect_tensor(learner.mean_brightness(images.contiguous()), what)
            got = expect_tensor(learner.mean_brightness(images), what)
            assert_close(got, want, what, rtol=1e-6, atol=1e-7)


def test_mean_brightness_empty_batch(learner, device):
    images = torch.zeros(0, 4, 4, dtype=torch.uint8).to(device)
    what = Text(
        "mean_brightness(images) for an empty batch of shape (0, 4, 4)",
        "mean_brightness(images)（images 是形状为 (0, 4, 4) 的空批次）",
    )
    got = expect_tensor(learner.mean_brightness(images), what)
    _whole_batch_mean(got, images, torch.zeros(0), what)
    _other_dims(got, images, what)
    assert_shape(got, (0,), what)
    # Its dtype is the one the same code gives for a non-empty batch (float32 is judged by
    # test_mean_brightness_float32).
    full = expect_tensor(learner.mean_brightness(torch.zeros(2, 4, 4, dtype=torch.uint8)), what)
    assert_dtype(got, full.dtype, what)


def test_mean_brightness_float32(learner, device, rng):
    for shape in [(4, 8, 8), (1, 5, 7), (3, 1, 1)]:
        images = _images(shape, rng).to(device)
        what = Text(
            f"mean_brightness(images) for uint8 images of shape {shape}",
            f"mean_brightness(images)（images 是形状为 {shape} 的 uint8 张量）",
        )
        assert_dtype(expect_tensor(learner.mean_brightness(images), what), torch.float32, what)


def test_mean_brightness_on_device(learner, device):
    # meta tensors have a device but no data: a tensor created on the CPU fails here as on a GPU.
    images = torch.zeros(3, 4, 5, dtype=torch.uint8).to(device)
    what = Text(
        'mean_brightness(images) for uint8 images of shape (3, 4, 5) on "meta"',
        'mean_brightness(images)（images 是位于 "meta" 设备、形状为 (3, 4, 5) 的 uint8 张量）',
    )
    got = expect_tensor(on_meta(learner, "mean_brightness", [images], what), what)
    assert_device(got, device, what)


def _dropped_astype(source, parameter):
    """The learner's own statement ``<parameter>.astype(...)`` in prepare_batch, its result not
    kept (``parameter``: the index of prepare_batch's argument), or None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    for node in tree.body:
        if not (isinstance(node, ast.FunctionDef) and node.name == "prepare_batch"):
            continue
        if len(node.args.args) <= parameter:
            return None
        name = node.args.args[parameter].arg
        for statement in ast.walk(node):
            call = statement.value if isinstance(statement, ast.Expr) else None
            if (
                isinstance(call, ast.Call)
                and isinstance(call.func, ast.Attribute)
                and call.func.attr == "astype"
                and isinstance(call.func.value, ast.Name)
                and call.func.value.id == name
            ):
                return (ast.get_source_segment(source, call) or "").splitlines()[0][:80]
    return None


def _astype_kept(got, dtype, source, parameter, what):
    """A wrong dtype that is the input's own, with the learner's ``a.astype(...)`` thrown away."""
    we, wz = names(what)
    code = _dropped_astype(source, parameter) if source else None
    if got.dtype != dtype or not code:
        return
    kind = str(dtype).removeprefix("torch.")
    fail(
        f"{we} are still {kind}, as the array came in: your line `{code}` returns a new array "
        "and your code throws it away. NumPy's astype does not change the array it is called "
        f"on; keep its result: {code.split('.')[0]} = {code}.",
        f"{wz} 仍是传入时的 {kind}：你的这一行 `{code}` 返回了一个新数组，而你的代码把它丢掉了。"
        f"NumPy 的 astype 不会修改调用它的数组；请保留它的返回值：{code.split('.')[0]} = {code}。",
        evidence=["wrong_dtype", "result_discarded"],
    )


def layout_story(got, want):
    """(evidence, English, Chinese) for a result whose shape differs from the expected one
    in a way its values explain: the features transposed, (d, n) holding the expected (n, d)
    swapped round; or the labels one-hot, (n, C) whose rows are 0 but for one 1, at each
    sample's class index. None otherwise (and where the shapes cannot tell: a square batch)."""
    g = got.detach().cpu()
    w = want.detach().cpu()
    if (
        g.dim() == 2
        and w.dim() == 2
        and tuple(g.shape) == tuple(w.shape)[::-1]
        and w.shape[0] != w.shape[1]
        and w.numel()
        and g.dtype.is_floating_point
        and torch.allclose(g.T.double(), w.double())
    ):
        n, d = w.shape
        return (
            "features_transposed",
            f"yours has shape ({d}, {n}): the features transposed, one row per feature. The array "
            f"arrives as ({n}, {d}), one row per sample, which is what nn.Linear({d}, ...) wants: "
            "it multiplies the last dimension, the features, by its weights. Keep the array's "
            "layout: no .T, .t() or transpose",
            f"你的结果形状为 ({d}, {n})：特征被转置了，每一行是一个特征。数组传进来时是 ({n}, {d})，"
            f"每一行是一个样本，这正是 nn.Linear({d}, ...) 需要的：它把最后一维（特征）与权重相乘。"
            "请保持数组原来的布局：不要 .T、.t() 或 transpose",
        )
    if g.dim() == 2 and w.dim() == 1 and g.shape[0] == w.shape[0] and w.numel() and g.shape[1] > 1:
        values = g.double()
        hot = bool(((values == 0) | (values == 1)).all()) and bool((values.sum(dim=1) == 1).all())
        if hot and torch.equal(values.argmax(dim=1), w.long()):
            n, c = g.shape
            return (
                "labels_one_hot",
                f"yours has shape ({n}, {c}): one-hot vectors, a 1 at each sample's class and 0 "
                f"elsewhere (F.one_hot). F.cross_entropy's target is one class index per sample, "
                f"shape ({n},), int64 from 0 to C - 1: the labels as they come, converted with "
                "torch.from_numpy(labels).long(), with no one_hot",
                f"你的结果形状为 ({n}, {c})：这是 one-hot 向量，每个样本所属类别处为 1，其余为 0"
                f"（F.one_hot）。F.cross_entropy 的目标是每个样本一个类别下标，形状为 ({n},)，"
                "取值 0 到 C - 1 的 int64：就是传进来的标签本身，用 torch.from_numpy(labels).long() "
                "转换即可，不要 one_hot",
            )
    return None


def _layout(got, want, what):
    """Fail with :func:`layout_story` where it holds."""
    story = layout_story(got, want)
    if story is not None:
        evidence, en, zh = story
        we, wz = names(what)
        fail(f"{we}: {en}.", f"{wz}：{zh}。", evidence=["wrong_shape", evidence])


def _check_features(got, want, what, source=""):
    we, wz = names(what)
    got = expect_tensor(got, what)
    _kept_batch(got, want, what)
    _layout(got, want, what)
    assert_shape(got, want.shape, what)
    _astype_kept(got, torch.float64, source, 0, what)
    if got.dtype == torch.float64:
        fail(
            f"{we} should be float32, but yours is float64: torch.from_numpy (like torch.tensor) "
            "keeps NumPy's float64, and nn.Linear's float32 weights refuse it. Convert with .float() "
            "or a.astype(np.float32).",
            f"{wz} 应为 float32，但你的结果是 float64：torch.from_numpy（和 torch.tensor 一样）会保留 "
            "NumPy 的 float64，而 nn.Linear 的 float32 权重不接受它。请用 .float() 或 a.astype(np.float32) 转换。",
            evidence=["wrong_dtype", "float64_from_numpy", "numpy_float64_kept"],
        )
    _normalised(got, want, what)
    _features_rounded(got, want, what)
    assert_close(got, want, what)


def _features_rounded(got, want, what):
    """Name features that are the float32 features rounded to float16 or bfloat16 (through
    .half(), astype(np.float16) or dtype=torch.float16 on the way in), value for value, and
    differ from them: float32 keeps every value the float64 array rounds to, these do not."""
    if got.device.type == "meta" or got.shape != want.shape or not got.numel():
        return
    if got.dtype != want.dtype:
        return  # a float16 result: its dtype is the story, told by the dtype check
    theirs, x = got.detach().cpu().double(), want.detach().cpu()
    if torch.allclose(theirs, x.double(), rtol=1e-5, atol=1e-6):
        return
    for dtype in _LOW_PRECISION:
        rounded = x.to(dtype).double()
        if torch.equal(rounded, x.double()) or not torch.equal(theirs, rounded):
            continue
        we, wz = names(what)
        kind = str(dtype).removeprefix("torch.")
        yours, expected = paired_heads(theirs.reshape(-1), x.double().reshape(-1))
        fail(
            f"{we}: your features are the float32 ones rounded to {kind} (yours {yours}, "
            f"expected {expected}): somewhere on the way in they were {kind} "
            "(.half(), astype(np.float16) or dtype=torch.float16), which keeps about 3 "
            "significant digits, and converting back to float32 afterwards cannot bring the "
            "lost digits back. Convert the float64 array straight to float32: "
            "torch.from_numpy(features).float().",
            f"{wz}：你的特征是 float32 特征舍入到 {kind} 之后的值（你的结果 {yours}，期望 "
            f"{expected}）：它们在进入时某处变成了 {kind}（.half()、astype(np.float16) 或 "
            "dtype=torch.float16），只保留大约 3 位有效数字，之后再转回 float32 也找不回丢掉的"
            "数字。请把 float64 数组直接转换为 float32：torch.from_numpy(features).float()。",
            evidence=["values_differ", "low_precision_float"],
        )


def _normalisations(x):
    """(replay, what it is in English, in Chinese) of the ways data is often normalised: x is
    the features as they should come back (float64 here)."""
    col_mean, col_min, col_max = x.mean(dim=0), x.amin(dim=0), x.amax(dim=0)
    yield (
        (x - col_mean) / x.std(dim=0),
        "standardised column by column, (x - mean) / std over dim 0",
        "按列做了标准化：沿第 0 维计算 (x - mean) / std",
    )
    yield (
        (x - col_mean) / x.std(dim=0, unbiased=False),
        "standardised column by column, (x - mean) / std over dim 0",
        "按列做了标准化：沿第 0 维计算 (x - mean) / std",
    )
    yield (
        (x - x.mean()) / x.std(),
        "standardised over the whole array, (x - x.mean()) / x.std()",
        "对整个数组做了标准化：(x - x.mean()) / x.std()",
    )
    yield (
        (x - x.mean()) / x.std(unbiased=False),
        "standardised over the whole array, (x - x.mean()) / x.std()",
        "对整个数组做了标准化：(x - x.mean()) / x.std()",
    )
    yield (x - col_mean, "centred, each column's mean subtracted", "做了中心化：每列减去了均值")
    yield (
        (x - col_min) / (col_max - col_min),
        "min-max scaled column by column to [0, 1]",
        "按列做了 min-max 缩放，缩放到 [0, 1]",
    )
    yield (
        (x - x.min()) / (x.max() - x.min()),
        "min-max scaled to [0, 1]",
        "做了 min-max 缩放，缩放到 [0, 1]",
    )
    yield (x / x.max(), "divided by the largest value", "除以了最大值")
    yield (x / x.abs().max(), "divided by the largest absolute value", "除以了绝对值最大的值")
    yield (
        x / x.norm(dim=1, keepdim=True),
        "normalised row by row to length 1 (F.normalize)",
        "按行归一化成了长度 1（F.normalize）",
    )
    for k in (255, 255.0 * 255, 256, 100, 10):
        yield (x / k, f"divided by {k:g}", f"除以了 {k:g}")


def _normalised(got, want, what):
    """Name features that were normalised where only the dtype was to change: the answer is one
    of the usual normalisations of the features, value for value, and differs from them."""
    if got.device.type == "meta" or got.shape != want.shape or got.dim() != 2:
        return
    if not got.numel() or not got.dtype.is_floating_point:
        return
    x, theirs = want.detach().cpu().double(), got.detach().cpu().double()
    if torch.allclose(theirs, x, rtol=1e-5, atol=1e-6):
        return
    for replay, how_en, how_zh in _normalisations(x):
        if not bool(torch.isfinite(replay).all()) or torch.allclose(
            replay, x, rtol=1e-5, atol=1e-6
        ):
            continue
        if not torch.allclose(theirs, replay, rtol=1e-4, atol=1e-5):
            continue
        we, wz = names(what)
        yours, expected = paired_heads(theirs.reshape(-1), x.reshape(-1))
        fail(
            f"{we}: your features are {how_en} (yours {yours}, expected {expected}): "
            "prepare_batch only changes the dtype, the values stay as they are. Normalising is "
            "a step of its own, with statistics of the training data; here return "
            "torch.from_numpy(features).float().",
            f"{wz}：你的特征{how_zh}（你的结果 {yours}，期望 {expected}）：prepare_batch "
            "只改变 dtype，数值保持原样。归一化是单独的一步，要用训练数据的统计量来做；这里请返回 "
            "torch.from_numpy(features).float()。",
            evidence=["values_differ", "normalised_not_converted"],
        )


def _check_labels(got, want, what, source=""):
    we, wz = names(what)
    got = expect_tensor(got, what)
    _kept_batch(got, want, what)
    _layout(got, want, what)
    assert_shape(got, want.shape, what)
    _astype_kept(got, torch.int32, source, 1, what)
    if got.dtype != torch.int64:
        kind = (
            "floats" if got.dtype.is_floating_point else f"{str(got.dtype).removeprefix('torch.')}"
        )
        fail(
            f"{we} should be int64 class indices, but yours are {kind}: F.cross_entropy refuses "
            'them ("expected target dtype to be Long"). NumPy integer arrays are often int32 and '
            "torch.from_numpy keeps that; convert with .long().",
            f"{wz} 应为 int64 的类别下标，但你的结果是 {kind}：F.cross_entropy 不接受它们"
            '（"expected target dtype to be Long"）。NumPy 整数数组常常是 int32，torch.from_numpy '
            "会保留这一 dtype；请用 .long() 转换。",
            evidence=["wrong_dtype", "labels_not_int64"],
        )
    assert_equal(got, want, what)


def _pair(value, what):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        assert_type(value, tuple, what)
        fail(
            f"{what} should return two tensors (features, labels), but yours returned {len(value)} values.",
            f"{what} 应返回两个张量（特征、标签），但你的结果有 {len(value)} 个值。",
            evidence=["wrong_length"],
        )
    return value


def test_prepare_batch_features(learner, reference, rng, learner_source):
    for n, d, classes in BATCHES:
        features, labels = _arrays(rng, n, d, classes)
        what = Text(
            f"the features prepare_batch returns for a float64 array of shape ({n}, {d})",
            f"prepare_batch 对形状为 ({n}, {d}) 的 float64 数组返回的特征",
        )
        X, _ = _pair(learner.prepare_batch(features, labels), "prepare_batch(features, labels)")
        _check_features(X, reference.prepare_batch(features, labels)[0], what, learner_source)


def test_prepare_batch_labels(learner, reference, rng, learner_source):
    for n, d, classes in BATCHES:
        features, labels = _arrays(rng, n, d, classes)
        what = Text(
            f"the labels prepare_batch returns for an int32 array of shape ({n},)",
            f"prepare_batch 对形状为 ({n},) 的 int32 数组返回的标签",
        )
        _, y = _pair(learner.prepare_batch(features, labels), "prepare_batch(features, labels)")
        _check_labels(y, reference.prepare_batch(features, labels)[1], what, learner_source)


def classifier_step(module, features, labels, classes, device, seed):
    """Feed the learner's batch to nn.Linear and F.cross_entropy, as a training step would."""
    X, y = module.prepare_batch(features, labels)
    torch.manual_seed(seed)
    model = nn.Linear(features.shape[1], classes).to(device)
    try:
        logits = model(X.to(device))
    except Exception as exc:  # noqa: BLE001 - reported as data: which step refused the batch, and why
        answer = {"stage": "linear", "error": f"{type(exc).__name__}: {exc}"}
        if isinstance(X, torch.Tensor):
            answer["features"] = X  # its dtype says what nn.Linear refused
        return answer
    try:
        loss = F.cross_entropy(logits, y.to(device))
        loss.backward()
    except Exception as exc:  # noqa: BLE001
        return {"stage": "loss", "error": f"{type(exc).__name__}: {exc}"}
    # the features too: a loss that differs is explained by them, where they show why
    return {"stage": "done", "loss": loss.item(), "weight_grad": model.weight.grad, "features": X}


def _dropped_note(source, parameter):
    """The learner's ``a.astype(...)`` thrown away, said in a sentence, or empty strings."""
    code = _dropped_astype(source, parameter) if source else None
    if not code:
        return "", ""
    keep = f"{code.split('.')[0]} = {code}"
    return (
        f" Your line `{code}` returns a new array and your code throws it away; keep its "
        f"result: {keep}.",
        f"你的这一行 `{code}` 返回了一个新数组，而你的代码把它丢掉了；请保留它的返回值：{keep}。",
    )


def _features_dtype_story(dtype):
    """(English, Chinese, evidence) saying what features of ``dtype`` (not float32, not
    float64) are to nn.Linear's float32 weights, and the fix."""
    name = str(dtype).removeprefix("torch.")
    if not (dtype.is_floating_point or dtype.is_complex):
        return (
            f"{name}, integers: a matrix product takes both sides in one dtype, and integer "
            "features have lost their fractions too. Convert the features with .float() "
            "(.long() is for the labels).",
            f"{name}，也就是整数：矩阵乘法要求两边是同一种 dtype，而且整数特征连小数部分也丢掉了。"
            "请用 .float() 转换特征（.long() 是给标签用的）。",
            ["integer_instead_of_float"],
        )
    return (
        f"{name}: a matrix product takes both sides in one dtype. Convert the features with "
        ".float(), to float32.",
        f"{name}：矩阵乘法要求两边是同一种 dtype。请用 .float() 把特征转换成 float32。",
        [],
    )


def test_prepare_batch_feeds_a_classifier(learner, reference, device, rng, seed, learner_source):
    features, labels = _arrays(rng, 16, 5, 3)
    got = learner.run(classifier_step, features, labels, 3, device, seed)
    want = classifier_step(reference, features, labels, 3, device, seed)
    error = str(got.get("error", ""))
    if got["stage"] == "linear":
        features = got.get("features")
        dtype = features.dtype if isinstance(features, torch.Tensor) else None
        float64 = dtype == torch.float64 if dtype is not None else "Double" in error
        dropped_en, dropped_zh = _dropped_note(learner_source, 0) if float64 else ("", "")
        if dropped_en:
            fail(
                "nn.Linear could not use the features from prepare_batch: "
                f"{error[:200]}. Its weights are float32; your features are still float64.{dropped_en}",
                "nn.Linear 无法使用 prepare_batch 返回的特征："
                f"{error[:200]}。它的权重是 float32，而你的特征仍是 float64。{dropped_zh}",
                evidence=["model_refused_input", "wrong_dtype", "result_discarded"],
            )
        if dtype is not None and not float64 and dtype != torch.float32:
            en, zh, evidence = _features_dtype_story(dtype)
            fail(
                f"nn.Linear could not use the features from prepare_batch: {error[:200]}. "
                f"Its weights are float32; your features are {en}",
                f"nn.Linear 无法使用 prepare_batch 返回的特征：{error[:200]}。"
                f"它的权重是 float32，而你的特征是 {zh}",
                evidence=["model_refused_input", "wrong_dtype", *evidence],
            )
        fail(
            "nn.Linear could not use the features from prepare_batch: "
            f"{error[:200]}"
            + (
                ". Its weights are float32; your features are float64 (NumPy's default, kept by "
                "torch.from_numpy). Convert them with .float()."
                if float64
                else "."
            ),
            "nn.Linear 无法使用 prepare_batch 返回的特征："
            f"{error[:200]}"
            + (
                "。它的权重是 float32，而你的特征是 float64（NumPy 的默认类型，被 torch.from_numpy 保留了下来）。"
                "请用 .float() 转换。"
                if float64
                else "。"
            ),
            evidence=["model_refused_input"]
            + (["wrong_dtype", "numpy_float64_kept"] if float64 else []),
        )
    if got["stage"] == "loss":
        target = "target dtype" in error or "scalar type Long" in error
        dropped_en, dropped_zh = _dropped_note(learner_source, 1) if target else ("", "")
        if dropped_en:
            fail(
                f"F.cross_entropy could not use the labels from prepare_batch: {error[:200]}. "
                f"Class labels must be int64 (Long); yours are still int32.{dropped_en}",
                f"F.cross_entropy 无法使用 prepare_batch 返回的标签：{error[:200]}。"
                f"类别标签必须是 int64（Long）；你的标签仍是 int32。{dropped_zh}",
                evidence=["loss_refused_labels", "wrong_dtype", "result_discarded"],
            )
        fail(
            f"F.cross_entropy could not use the labels from prepare_batch: {error[:200]}"
            + (
                ". Class labels must be int64 (Long); convert them with .long()." if target else "."
            ),
            f"F.cross_entropy 无法使用 prepare_batch 返回的标签：{error[:200]}"
            + ("。类别标签必须是 int64（Long）；请用 .long() 转换。" if target else "。"),
            evidence=["loss_refused_labels"]
            + (["wrong_dtype", "labels_not_int64"] if target else []),
        )
    what = Text(
        "the cross-entropy loss of an nn.Linear classifier on your batch",
        "nn.Linear 分类器在你这批数据上的交叉熵损失",
    )
    _loss_from_features(
        got,
        want,
        Text(
            "the loss and gradient of an nn.Linear classifier on your batch",
            "nn.Linear 分类器在你这批数据上的损失和梯度",
        ),
    )
    assert_value(got["loss"], want["loss"], what, rel=1e-5, abs_=1e-6)
    what = Text(
        "the gradient of the classifier's weights on your batch",
        "分类器权重在你这批数据上的梯度",
    )
    grad = expect_tensor(got["weight_grad"], what)
    assert_close(grad, want["weight_grad"], what, rtol=1e-4, atol=1e-6)


def _loss_from_features(got, want, what):
    """A loss or gradient that differs, with the learner's features that explain it named:
    normalised, or rounded to float16, as test_prepare_batch_features names them (the features
    are the learner's own answer, so anything else is no evidence and leaves the plain
    message)."""
    features, ours = got.get("features"), want.get("features")
    if not isinstance(features, torch.Tensor) or not isinstance(ours, torch.Tensor):
        return
    loss, grad = got.get("loss"), got.get("weight_grad")
    if not isinstance(loss, float) or not isinstance(grad, torch.Tensor):
        return
    same_loss = math.isclose(loss, float(want["loss"]), rel_tol=1e-5, abs_tol=1e-6)
    same_grad = grad.shape == want["weight_grad"].shape and torch.allclose(
        grad.detach().cpu().double(),
        want["weight_grad"].detach().cpu().double(),
        rtol=1e-4,
        atol=1e-6,
    )
    if same_loss and same_grad:
        return
    we, wz = names(what)
    features_what = Text(
        f"{we}: it differs because of the features prepare_batch returns",
        f"{wz}：它不同是因为 prepare_batch 返回的特征",
    )
    _normalised(features, ours, features_what)
    _features_rounded(features, ours, features_what)


def strided_arrays(module, seed):
    """prepare_batch on arrays that are views with strides (a column slice and a transpose), and
    on contiguous copies of them (made before the call, from fresh arrays each time)."""
    rng = np.random.default_rng(seed)
    sliced = rng.standard_normal((6, 10))[:, ::2]
    transposed = rng.standard_normal((5, 6)).T
    base = rng.integers(0, 4, size=12).astype(np.int32)
    answers = []
    for f in (sliced, transposed):
        labels = base.copy()[::2]
        copies = (np.array(f, order="C", copy=True), np.array(labels, order="C", copy=True))
        answers.append((module.prepare_batch(f, labels), module.prepare_batch(*copies)))
    return answers


def test_prepare_batch_array_layouts(learner, seed):
    # Arrays cross to the learner's process as contiguous copies, so the strided views are made
    # there, by a scenario. The learner on views against the same learner on contiguous copies.
    got = learner.run(strided_arrays, seed)
    layouts = (("a column slice", "按列切片得到的数组"), ("a transposed array", "转置得到的数组"))
    for (on_views, on_copies), (en, zh) in zip(got, layouts):
        call = "prepare_batch(features, labels)"
        X, y = _pair(on_views, call)
        X_copy, y_copy = _pair(on_copies, call)
        for name, value, copy, zh_name in (
            ("features", X, X_copy, "特征"),
            ("labels", y, y_copy, "标签"),
        ):
            what = Text(
                f"the {name} prepare_batch returns for {en} of shape (6, 5) (labels: a strided "
                f"slice of shape (6,)), against your own for contiguous copies",
                f"prepare_batch 对形状为 (6, 5) 的{zh}（标签是形状为 (6,)、带步长切片得到的数组）"
                f"返回的{zh_name}，与你自己对连续副本的结果相比",
            )
            assert_equal(
                expect_tensor(value, what), expect_tensor(copy, what), what, check_dtype=True
            )


def test_leaves_inputs_alone(learner, rng):
    # The only test that judges the inputs (input_check is off in the others): every call here
    # fails if it changes them.
    learner.mean_brightness(_images((3, 4, 5), rng))
    features, labels = _arrays(rng, 8, 3, 4)
    learner.prepare_batch(features, labels)
