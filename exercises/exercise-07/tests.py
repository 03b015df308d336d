"""Hidden tests of exercise-07: broadcasting, pairwise distances and IoU.

Seed pitfalls covered:
- 000 §9.1: pairwise distances with a double Python loop instead of broadcasting. The tensor
  operations of traced calls are counted at two sizes (test_pairwise_no_python_loops), backed by
  a static look for loops in the function.
- sqrt of the expansion |x|^2 + |y|^2 - 2 x.y: its rounding errors make the diagonal slightly
  negative (NaN after sqrt) or slightly positive (not exactly 0). torch.cdist takes that path for
  more than 25 rows, so the diagonal test uses 40 points far from the origin.
- 000 §5.4, 003 §2.3: the mean over the wrong dim (dim=1 averages each row, no dim averages
  everything); subtracting in place changes the caller's tensor (checked on every call).
- 000 §5.3: IoU of [num_anchor, 4] against [num_gt, 4] with the middle dims paired the wrong way:
  a transposed shape when N != M, silently transposed values when N == M. Disjoint boxes must give
  0: the overlap's width and height are clamped at 0 separately (a product of two negative sides
  is positive). Touching boxes give 0, identical boxes 1.
- Tensors created on the CPU whatever the input's device: meta tensors stand in for a GPU.
"""

import math
import warnings

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing import (
    assert_close,
    assert_device,
    assert_no_loops,
    assert_ops_constant,
    assert_shape,
    expect_tensor,
    fail,
    names,
    on_meta,
    sole_story,
)
from grader.testing.properties import PROPERTY

# ---------------------------------------------------------------------------------------------
# Inputs


def _layouts(rows, cols, rng, device, dtype=torch.float32):
    """A random (rows, cols) matrix as a transposed view and as a sliced view."""
    yield (
        (" (a transposed view)", "（转置视图）"),
        torch.randn(cols, rows, generator=rng, dtype=dtype).to(device).t(),
    )
    yield (
        (" (a sliced view)", "（切片视图）"),
        torch.randn(rows, 2 * cols, generator=rng, dtype=dtype).to(device)[:, ::2],
    )


def _for_x(call, x, note=("", "")):
    """The name of a call on x, in both languages."""
    return Text(
        f"{call} for x of shape {tuple(x.shape)}{note[0]}",
        f"x 的形状为 {tuple(x.shape)}{note[1]}时的 {call}",
    )


def _keeps_dtype(got, dtype, what):
    """The result has the input's dtype (diagnosis dtype-not-kept)."""
    if got.dtype == dtype:
        return
    we, wz = names(what)
    want, yours = str(dtype).removeprefix("torch."), str(got.dtype).removeprefix("torch.")
    we, wz = names(what)
    fail(
        f"{we} should keep the input's dtype, {want}, but yours has dtype {yours}.",
        f"{wz} 应当保持输入的 dtype {want}，但你的结果是 {yours}。",
        evidence=["wrong_dtype", "dtype_not_kept"],
    )


def _boxes(rng, count, dtype=torch.float32):
    """``count`` random boxes (x1, y1, x2, y2) with positive area; some overlap, some do not."""
    corner = torch.rand(count, 2, generator=rng, dtype=torch.float64) * 6
    size = 0.5 + torch.rand(count, 2, generator=rng, dtype=torch.float64) * 3.5
    return torch.cat([corner, corner + size], dim=1).to(dtype)


def _float_tol(dtype):
    """(rtol, atol) for a result computed by another valid formula in this dtype."""
    return (1e-4, 1e-4) if dtype == torch.float32 else (1e-7, 1e-9)


# ---------------------------------------------------------------------------------------------
# pairwise_distance


def _check_distance_shape(got, x, what):
    """The (n, n) shape, naming the two classic wrong reductions of the (n, n, d) differences:
    no dim at all (one number) and the sum over a point's dim instead of the coordinates'."""
    n, d = x.shape
    if got.device.type != "meta" and n > 1 and tuple(got.shape) != (n, n):
        xs = x.detach().cpu().double()
        diff = xs[:, None, :] - xs[None, :, :]
        mine = got.detach().cpu().double()
        we, wz = names(what)
        if got.dim() == 0 and torch.allclose(mine, diff.pow(2).sum().sqrt(), rtol=1e-4):
            fail(
                f"{we} should have shape ({n}, {n}), but yours is one number, {mine.item():.6g}: "
                f"the norm of all {n}x{n}x{d} coordinate differences at once. A norm or sum "
                "without dim= reduces every dimension; reduce only the coordinates, the last "
                "dim: torch.norm(diff, dim=-1) or diff.pow(2).sum(dim=-1).sqrt().",
                f"{wz} 的形状应为 ({n}, {n})，但你的结果只是一个数 {mine.item():.6g}："
                f"它是全部 {n}x{n}x{d} 个坐标差合在一起的范数。不指定 dim= 的范数或求和会归约所有维度；"
                "只应归约坐标所在的最后一维：torch.norm(diff, dim=-1) 或 diff.pow(2).sum(dim=-1).sqrt()。",
                evidence=["wrong_shape", "reduced_all_dims"],
            )
        if n != d and tuple(got.shape) == (n, d):
            over_points = diff.pow(2).sum(dim=1).sqrt()
            if torch.allclose(mine, over_points, rtol=1e-4, atol=1e-5):
                fail(
                    f"{we} should have shape ({n}, {n}), but yours has shape ({n}, {d}): its "
                    "[i, k] is the root of the sum over j of (x[i, k] - x[j, k])². The sum ran over "
                    "the other point (dim=1, or dim=0, of the (n, n, d) differences), not over the "
                    "d coordinates. Reduce the last dim: .sum(dim=-1) (or dim=2).",
                    f"{wz} 的形状应为 ({n}, {n})，但你的结果形状为 ({n}, {d})：它的 [i, k] 是 "
                    "(x[i, k] - x[j, k])² 对 j 求和再开方。求和沿的是另一个点（(n, n, d) 差值的 dim=1"
                    "或 dim=0），而不是 d 个坐标。请归约最后一维：.sum(dim=-1)（或 dim=2）。",
                    evidence=["wrong_shape", "reduced_wrong_dim"],
                )
    assert_shape(got, (n, n), what)


PAIRWISE_SHAPES = [(5, 3), (1, 4), (2, 1), (8, 16), (6, 2), (0, 3)]


def test_pairwise_values(learner, reference, device, rng):
    # Every pair but the diagonal: a point's distance to itself (exactly 0, never NaN) is
    # test_pairwise_diagonal_exactly_zero's; the dtype and device have their own tests.
    cases = [(torch.randn(n, d, generator=rng).to(device), ("", "")) for n, d in PAIRWISE_SHAPES]
    cases += [(x, note) for note, x in _layouts(7, 3, rng, device)]
    cases.append(
        (
            torch.randn(6, 4, generator=rng, dtype=torch.float64).to(device),
            (" (float64)", "（float64）"),
        )
    )
    for x, note in cases:
        what = _for_x("pairwise_distance(x)", x, note)
        want = reference.pairwise_distance(x)
        got = expect_tensor(learner.pairwise_distance(x), what)
        # At the precision of the coarser dtype: whether it is kept is test_keeps_dtype's.
        rtol, atol = _float_tol(x.dtype if got.dtype == x.dtype else torch.float32)
        _check_distance_shape(got, x, what)
        mine, want = got.detach().cpu().clone(), want.cpu().clone()
        mine.diagonal().zero_()
        want.diagonal().zero_()
        _not_sqrt_of_dot_products(mine, want, x, what, rtol, atol)
        _pairwise_distance_eps_values(mine, want, x, what, rtol, atol)
        _another_distance(mine, want, x, what, rtol, atol)
        assert_close(
            mine,
            want.to(mine.dtype) if mine.dtype.is_floating_point else want,
            what,
            rtol=rtol,
            atol=atol,
            check_dtype=False,
        )


def _another_distance(mine, want, x, what, rtol, atol):
    """fail() where the learner's distances are another formula of the differences: the sum of
    their absolute values (the Manhattan distance), or the root of their mean square (mean
    where the sum was due: the Euclidean distance over sqrt(d))."""
    if not mine.dtype.is_floating_point or mine.shape != want.shape or x.shape[1] < 2:
        return
    yours = mine.double()
    if bool(torch.isclose(yours, want.double(), rtol=rtol, atol=atol, equal_nan=True).all()):
        return
    rows = x.detach().cpu().double()
    diff = rows[:, None, :] - rows[None, :, :]
    we, wz = names(what)
    stories = (
        (
            diff.abs().sum(dim=-1),
            "manhattan_distance",
            "every value is the sum of the absolute differences, |x[i] - x[j]|.sum() (the "
            "Manhattan distance). The Euclidean distance is the square root of the sum of the "
            "squared differences: ((x[:, None] - x[None]) ** 2).sum(-1).sqrt().",
            "每个值都是差的绝对值之和 |x[i] - x[j]|.sum()（曼哈顿距离）。欧氏距离是差的平方和的平方根："
            "((x[:, None] - x[None]) ** 2).sum(-1).sqrt()。",
        ),
        (
            (diff**2).mean(dim=-1).sqrt(),
            "mean_where_sum",
            "every value is the Euclidean distance divided by sqrt(d): the squared differences "
            "were averaged (mean) where they should be summed. Sum over the coordinates: "
            "((x[:, None] - x[None]) ** 2).sum(-1).sqrt().",
            "每个值都是欧氏距离除以 sqrt(d)：差的平方被取了平均（mean），而应该求和。"
            "请对坐标求和：((x[:, None] - x[None]) ** 2).sum(-1).sqrt()。",
        ),
        (
            (diff**2).sum(dim=-1),
            "",
            "every value is the squared Euclidean distance, the sum of the squared differences "
            "without its square root (torch.cdist(x, x) ** 2 is that too). Take the square "
            "root last: ((x[:, None] - x[None]) ** 2).sum(-1).sqrt().",
            "每个值都是欧氏距离的平方，即差的平方和，但没有开平方（torch.cdist(x, x) ** 2 也是如此）。"
            "最后要开平方：((x[:, None] - x[None]) ** 2).sum(-1).sqrt()。",
        ),
    )
    for values, tag, en, zh in stories:
        values.diagonal().zero_()
        if bool(torch.isclose(yours, values, rtol=rtol, atol=atol, equal_nan=True).all()):
            evidence = ["values_differ", tag] if tag else ["values_differ"]
            fail(f"{we}: {en}", f"{wz}：{zh}", evidence=evidence)


def _not_sqrt_of_dot_products(mine, want, x, what, rtol, atol):
    """fail() where the learner's distances are sqrt(x @ x.T): the square roots of the dot
    products of the rows (NaN where a dot product is negative), not of their squared
    distances. The general story of a NaN (find its cause; clamp a squared distance before
    sqrt) would send the learner to clamp what is no distance at all."""
    if not mine.dtype.is_floating_point or mine.shape != want.shape:
        return
    rows = x.detach().cpu().double()
    dots = rows @ rows.T
    yours = mine.double()
    if bool(torch.isclose(yours, want.double(), rtol=rtol, atol=atol, equal_nan=True).all()):
        return  # right: the values test passes
    # the square roots as they are (NaN where negative), or clamped at 0 first: what the
    # general NaN advice leads to
    for roots in (torch.sqrt(dots), torch.sqrt(dots.clamp_min(0))):
        roots.diagonal().zero_()
        if bool(torch.isclose(yours, roots, rtol=rtol, atol=atol, equal_nan=True).all()):
            break
    else:
        return
    we, wz = names(what)
    fail(
        f"{we}: every value is the square root of a dot product of two rows (torch.sqrt(x @ x.T)), "
        "NaN (or 0, clamped) where that product is negative. x @ x.T holds dot products "
        "x[i] . x[j], not squared distances: the squared distance is "
        "|x[i]|^2 + |x[j]|^2 - 2 x[i] . x[j], or, with no rounding on the diagonal, "
        "((x[:, None] - x[None]) ** 2).sum(-1). A clamp does not help: the NaN comes from the "
        "formula.",
        f"{wz}：每个值都是两行点积的平方根（torch.sqrt(x @ x.T)），点积为负处为 NaN"
        "（或被 clamp 成 0）。x @ x.T 是点积 x[i] · x[j]，而不是距离的平方：距离的平方是 |x[i]|^2 + |x[j]|^2 - 2 x[i] · x[j]，"
        "或者（对角线上没有舍入误差）((x[:, None] - x[None]) ** 2).sum(-1)。clamp 无济于事："
        "NaN 来自公式本身。",
        evidence=["values_differ", "sqrt_of_dot_products"],
    )


def _within_expansion_rounding(diagonal: torch.Tensor, x: torch.Tensor) -> bool:
    """Whether every diagonal value is small enough to be the rounding error of
    |x|^2 + |y|^2 - 2 x.y: the squared distance of a point to itself then comes out as a few
    units in the last place of |x|^2 (the sums of d products err by about d * eps * |x|^2),
    so its square root is at most about sqrt((d + 4) * eps) * |x|. The bound allows 16 times
    that; cdist and the expansion reach a twentieth of it. A diagonal beyond it (|x| itself,
    for sqrt(x @ x.T)) is some other formula, and rounding advice would mislead."""
    dtype = diagonal.dtype if diagonal.dtype.is_floating_point else torch.float32
    eps = max(torch.finfo(torch.float32).eps, torch.finfo(dtype).eps)
    norms = x.detach().cpu().double().norm(dim=1)
    bound = norms * math.sqrt(16 * (x.shape[1] + 4) * eps)
    return bool((diagonal.double().abs() <= bound).all())


def _pairwise_distance_eps(c, x, we, wz):
    """Name F.pairwise_distance's own epsilon: it adds eps=1e-6 to every component of the
    difference, so each point is exactly sqrt(d) * 1e-6 from itself (d: the number of
    coordinates). The learner added nothing, so "an epsilon added before sqrt" would mislead."""
    d = x.shape[1]
    own = 1e-6 * math.sqrt(d)
    if not abs(c - own) <= 1e-3 * own:
        return
    fail(
        f"{we}: the diagonal should be exactly 0 (each point's distance to itself), but every "
        f"diagonal value of yours is the same {c:.6g}, which is 1e-6 * sqrt({d}): "
        "F.pairwise_distance (like nn.PairwiseDistance) adds its eps=1e-6 to every coordinate "
        "of the difference by default, so no point is 0 away from itself, and every other "
        "distance is off a little too. Compute the distances yourself: "
        "(x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1).sqrt(), or torch.cdist(x, x).",
        f"{wz}：对角线应当恰好为 0（每个点到自身的距离），但你的结果对角线上每个值都是同一个 "
        f"{c:.6g}，即 1e-6 * sqrt({d})：F.pairwise_distance（和 nn.PairwiseDistance 一样）默认会给"
        "差值的每个坐标加上 eps=1e-6，所以没有哪个点到自身的距离是 0，其他距离也都略有偏差。"
        "请自己计算距离：(x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1).sqrt()，"
        "或者 torch.cdist(x, x)。",
        evidence=["values_differ", "pairwise_distance_eps"],
    )


def _pairwise_distance_eps_values(mine, want, x, what, rtol, atol):
    """fail() where the learner's distances are F.pairwise_distance's (nn.PairwiseDistance's):
    the norm of x[i] - x[j] + 1e-6 (or - 1e-6, the rows given the other way round). Named only
    where that fits the values far better than the distances do: the eps moves a distance by
    about 1e-6, which a float32 formula's own rounding can match on a single value, never by
    landing on the eps formula's values everywhere."""
    if not mine.dtype.is_floating_point or mine.shape != want.shape or not mine.numel():
        return
    yours = mine.double()
    off = (yours - want.double()).abs()
    if bool(torch.isclose(yours, want.double(), rtol=rtol, atol=atol, equal_nan=True).all()):
        return
    rows = x.detach().cpu().double()
    diff = rows[:, None, :] - rows[None, :, :]
    for sign in (1.0, -1.0):
        values = (diff + sign * 1e-6).pow(2).sum(dim=-1).sqrt()
        values.diagonal().zero_()
        near = (yours - values).abs()
        if bool(torch.isclose(yours, values, rtol=rtol, atol=atol).all()) and bool(
            near.max() <= 0.25 * off.max()
        ):
            break
    else:
        return
    we, wz = names(what)
    fail(
        f"{we}: your distances are F.pairwise_distance's (nn.PairwiseDistance's), which adds "
        "its eps=1e-6 to every coordinate of the difference by default: each distance is off "
        "by about 1e-6, and no point is 0 away from itself. Compute the distances yourself: "
        "(x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1).sqrt(), or torch.cdist(x, x).",
        f"{wz}：你的距离是 F.pairwise_distance（或 nn.PairwiseDistance）算出的，它默认会给差值的每个"
        "坐标加上 eps=1e-6：每个距离都偏差约 1e-6，也没有哪个点到自身的距离是 0。请自己计算距离："
        "(x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1).sqrt()，或者 torch.cdist(x, x)。",
        evidence=["values_differ", "pairwise_distance_eps"],
    )


def test_pairwise_diagonal_exactly_zero(learner, device, rng):
    # 40 points far from the origin (coordinates near 100), two of them identical: the rounding
    # errors of |x|^2 + |y|^2 - 2 x.y are then large, and 40 rows is past cdist's switch to it.
    x = 100 + 10 * torch.randn(40, 6, generator=rng)
    x[17] = x[5]
    x = x.to(device)
    what = Text(
        "pairwise_distance(x) for 40 points with coordinates near 100",
        "对 40 个坐标在 100 附近的点计算的 pairwise_distance(x)",
    )
    got = expect_tensor(learner.pairwise_distance(x), what)
    _check_distance_shape(got, x, what)
    values = got.detach().cpu()
    bad = ~torch.isfinite(values)
    if bool(bad.any()):
        i, j = (int(v) for v in bad.nonzero()[0])
        we, wz = names(what)
        fail(
            f"{we} holds {values[i, j].item()} at [{i}, {j}]: a distance is always a finite "
            "number. With |x|^2 + |y|^2 - 2 x.y, rounding can make a squared distance slightly "
            "negative, and its square root is NaN. Clamp it at 0 before sqrt (clamp_min(0)), or "
            "subtract the points first.",
            f"{wz} 在 [{i}, {j}] 处为 {values[i, j].item()}：距离总是有限的数。用 "
            "|x|^2 + |y|^2 - 2 x.y 计算时，舍入误差会让平方距离变成很小的负数，开方就得到 NaN。"
            "请在 sqrt 之前把它截断到 0（clamp_min(0)），或者先把两点相减。",
            evidence=[
                "values_differ",
                "nan_in_output" if values[i, j].isnan() else "inf_in_output",
                "nan_from_sqrt",
            ],
        )
    diagonal = values.diagonal()
    off = (diagonal != 0).nonzero()
    if off.numel() == diagonal.numel() and bool((diagonal == diagonal[0]).all()):
        # one and the same small value on every diagonal entry: no rounding does that; a
        # number added before sqrt does (sqrt(0 + eps))
        c = float(diagonal[0])
        we, wz = names(what)
        _pairwise_distance_eps(c, x, we, wz)
        fail(
            f"{we}: the diagonal should be exactly 0 (each point's distance to itself), but "
            f"every diagonal value of yours is the same {c:.6g}, which is sqrt({c * c:.3g}): a "
            "small number added before sqrt (an epsilon) becomes the distance of each point to "
            "itself. Add nothing: sqrt of the summed squares of x[:, None, :] - x[None, :, :] "
            "is exactly 0 on the diagonal and never NaN.",
            f"{wz}：对角线应当恰好为 0（每个点到自身的距离），但你的结果对角线上每个值都是同一个 "
            f"{c:.6g}，即 sqrt({c * c:.3g})：在 sqrt 之前加上的小数（epsilon）变成了每个点到自身的距离。"
            "什么都不要加：x[:, None, :] - x[None, :, :] 的平方和开方后，对角线恰好为 0，也不会出现 NaN。",
            evidence=["values_differ", "epsilon_before_sqrt"],
        )
    if off.numel() and not _within_expansion_rounding(diagonal, x):
        # far more than |x|^2 + |y|^2 - 2 x.y can leave: not a rounding error, and no advice
        # about one; what the learner returned is not the distance of a point to itself
        i = int(diagonal.abs().argmax())
        we, wz = names(what)
        fail(
            f"{we}: the diagonal should be exactly 0 (each point's distance to itself), but "
            f"yours holds {diagonal[i].item():.6g} at [{i}, {i}] ({off.numel()} of 40 diagonal "
            "values are not 0), far more than rounding can leave for points of this size "
            f"(|x[{i}]| is {float(x[i].detach().double().norm()):.6g}). Check the formula on two "
            "points by hand: the distance is the square root of the summed squared differences "
            "of their coordinates.",
            f"{wz}：对角线应当恰好为 0（每个点到自身的距离），但你的结果在 [{i}, {i}] 处为 "
            f"{diagonal[i].item():.6g}（40 个对角线元素中有 {off.numel()} 个不为 0），"
            "远远超过这种大小的点可能产生的舍入误差"
            f"（|x[{i}]| 为 {float(x[i].detach().double().norm()):.6g}）。"
            "请用两个点手算检查公式：距离是两点各坐标之差的平方和再开方。",
            evidence=["values_differ"],
        )
    if off.numel():
        i = int(off[0])
        we, wz = names(what)
        fail(
            f"{we}: the diagonal should be exactly 0 (each point's distance to itself), but "
            f"yours holds {diagonal[i].item():.6g} at [{i}, {i}] ({off.numel()} of 40 diagonal "
            "values are not 0). The usual cause is the rounding error of |x|^2 + |y|^2 - 2 x.y "
            "(torch.cdist also uses it for more than 25 rows), or a small number added before "
            "sqrt: subtract the points first (x[:, None, :] - x[None, :, :]), or set the diagonal "
            "to 0 afterwards.",
            f"{wz}：对角线应当恰好为 0（每个点到自身的距离），但你的结果在 [{i}, {i}] 处为 "
            f"{diagonal[i].item():.6g}（40 个对角线元素中有 {off.numel()} 个不为 0）。"
            "常见原因是 |x|^2 + |y|^2 - 2 x.y 的舍入误差（行数超过 25 时 torch.cdist 也用这个公式），"
            "或者在 sqrt 之前加了一个小数：请先把两点相减（x[:, None, :] - x[None, :, :]），"
            "或者事后把对角线置为 0。",
            evidence=["values_differ", "diagonal_not_zero"],
        )


def test_pairwise_no_python_loops(learner, learner_source, rng):
    sizes = (4, 16)
    records = []
    for n in sizes:
        learner.call("pairwise_distance", torch.randn(n, 3, generator=rng), trace=True)
        records.append(learner.last)
    assert_ops_constant(records, sizes, "pairwise_distance(x)")
    assert_no_loops(learner_source, "pairwise_distance")


def test_center_and_iou_no_python_loops(learner, rng):
    # "No Python loops" is measured as the curriculum defines it: the number of tensor operations
    # must not grow with the size of the input (a loop over the 4 coordinates of a box is fine).
    records, sizes = [], (4, 16)
    for n in sizes:
        learner.call("center_columns", torch.randn(n, n, generator=rng), trace=True)
        records.append(learner.last)
    assert_ops_constant(records, sizes, "center_columns(x)")
    records = []
    for n in sizes:
        learner.call("iou_matrix", _boxes(rng, n), _boxes(rng, n - 1), trace=True)
        records.append(learner.last)
    assert_ops_constant(records, sizes, "iou_matrix(a, b)")


# ---------------------------------------------------------------------------------------------
# center_columns


def _columns_with_offsets(rng, n, d, device, dtype=torch.float32):
    """Columns around very different means, so averaging the wrong way shows."""
    offsets = 5 * torch.randn(d, generator=rng, dtype=dtype)
    return (torch.randn(n, d, generator=rng, dtype=dtype) + offsets).to(device)


_CENTER_MISTAKES = (
    (
        "reduced_wrong_dim",
        lambda x: x - x.mean(dim=1, keepdim=True),
        "subtracted each row's mean (dim=1) instead of each column's",
        "减去的是每一行的均值（dim=1），而不是每一列的均值",
    ),
    (
        "reduced_wrong_dim",
        lambda x: (
            x - x.mean(dim=1) if x.shape[0] == x.shape[1] else None
        ),  # only square x broadcast
        "subtracted the row means (dim=1), lined up along the columns by broadcasting",
        "减去的是各行的均值（dim=1），它们经广播沿列排开",
    ),
    (
        "reduced_all_dims",
        lambda x: x - x.mean(),
        "subtracted the mean of the whole tensor instead of each column's",
        "减去的是整个张量的均值，而不是每一列的均值",
    ),
    (
        "mean_over_wrong_count",
        lambda x: (
            x - x.sum(dim=0, keepdim=True) / x.shape[1] if x.shape[0] != x.shape[1] else None
        ),  # square x: the same as the right answer
        "subtracted each column's sum divided by the number of columns, x.shape[1]; a column "
        "holds x.shape[0] values (one per row), so its mean divides its sum by x.shape[0]",
        "减去的是每一列的和除以列数 x.shape[1]；一列有 x.shape[0] 个值（每行一个），"
        "所以它的均值是这一列的和除以 x.shape[0]",
    ),
)


def _name_center_mistake(got, x, want, rtol, atol, what):
    """Fail with a named message when a wrong result is a classic wrong reduction of x."""
    if got.device.type == "meta" or got.shape != x.shape or not x.numel():
        return
    mine, xs = got.detach().cpu().to(want.dtype), x.detach().cpu().to(want.dtype)
    if torch.allclose(mine, want.cpu(), rtol=rtol, atol=atol):
        return
    story = sole_story(
        (tag, en, zh)
        for tag, mistake, en, zh in _CENTER_MISTAKES
        if (wrong := mistake(xs)) is not None and torch.allclose(mine, wrong, rtol=rtol, atol=atol)
    )
    if story is not None:
        tag, en, zh = story
        we, wz = names(what)
        fail(
            f"{we}: your result {en}. A column's mean averages over the rows, which is "
            "dim=0: x.mean(dim=0, keepdim=True) has shape (1, d).",
            f"{wz}：你的结果{zh}。一列的均值是对所有行求平均，也就是 dim=0："
            "x.mean(dim=0, keepdim=True) 的形状为 (1, d)。",
            evidence=["values_differ", tag],
        )
    centred = xs - xs.mean(dim=0, keepdim=True)
    for unbiased in (True, False):
        with warnings.catch_warnings():  # a single row has no sample std: NaN, as the learner's
            warnings.simplefilter("ignore")
            scaled = centred / xs.std(dim=0, keepdim=True, unbiased=unbiased)
        if torch.allclose(mine, scaled, rtol=rtol, atol=atol, equal_nan=True):
            nan = bool(torch.isnan(mine).any())
            we, wz = names(what)
            fail(
                f"{we}: your result is the centred x divided by each column's standard "
                "deviation (x.std(dim=0)): that standardises x. Centring only subtracts each "
                "column's mean: x - x.mean(dim=0, keepdim=True), with no division"
                + (
                    " (a constant column's std is 0: that is where your NaN come from)."
                    if nan
                    else "."
                ),
                f"{wz}：你的结果是中心化之后的 x 再除以每一列的标准差（x.std(dim=0)）：那是标准化。"
                "中心化只减去每一列的均值：x - x.mean(dim=0, keepdim=True)，不做除法"
                + ("（常数列的标准差为 0：你的 NaN 正是由此而来）。" if nan else "。"),
                evidence=["values_differ", "standardised_not_centred"],
            )


def _center_tol(x, got=None):
    """At the precision of the coarser of x's and the result's dtype (whether the dtype is kept
    is test_keeps_dtype's)."""
    scale = float(x.detach().abs().max()) if x.numel() else 0.0
    if x.dtype == torch.float32 or (got is not None and got.dtype != x.dtype):
        return 1e-5, 1e-5 * (1 + scale)
    return 1e-7, 1e-9 * (1 + scale)


def _check_centered(got, x, want, what):
    got = expect_tensor(got, what)
    assert_shape(got, want.shape, what)
    rtol, atol = _center_tol(x, got)
    _name_center_mistake(got, x, want, rtol, atol, what)
    # Values only: the dtype and the device have their own tests.
    assert_close(got, want, what, rtol=rtol, atol=atol, check_dtype=False, check_device=False)


CENTER_SHAPES = [(3, 3), (4, 3), (1, 5), (6, 1), (7, 2), (0, 3)]


def test_center_columns_values(learner, reference, device, rng):
    cases = [(_columns_with_offsets(rng, n, d, device), ("", "")) for n, d in CENTER_SHAPES]
    base = _columns_with_offsets(rng, 6, 8, device)
    cases.append((base.t().contiguous().t(), (" (a transposed view)", "（转置视图）")))
    cases.append((base[::2, 1::2], (" (a sliced view)", "（切片视图）")))
    cases.append(
        (_columns_with_offsets(rng, 5, 3, device, torch.float64), (" (float64)", "（float64）"))
    )
    for x, note in cases:
        what = _for_x("center_columns(x)", x, note)
        _check_centered(learner.center_columns(x), x, reference.center_columns(x), what)


def test_center_columns_edge_cases(learner, reference, device, rng):
    constant = torch.tensor([[2.0, 0.1, -7.5]]).repeat(5, 1)
    constant[:, 1] = torch.randn(5, generator=rng)  # one varying column between two constant ones
    cases = [
        (constant, (" with two constant columns", "、有两列为常数")),
        (torch.randn(1, 4, generator=rng), (" (a single row)", "（只有一行）")),
        (torch.randn(5, 1, generator=rng) + 3, (" (a single column)", "（只有一列）")),
    ]
    for x, note in cases:
        x = x.to(device)
        what = _for_x("center_columns(x)", x, note)
        _check_centered(learner.center_columns(x), x, reference.center_columns(x), what)


@settings(parent=PROPERTY, max_examples=15)
@given(
    n=st.integers(1, 6),
    d=st.integers(1, 5),
    offset=st.floats(-50, 50, allow_nan=False),
    data_seed=st.integers(0, 2**16),
)
def test_center_columns_property(learner, n, d, offset, data_seed):
    x = torch.randn(n, d, generator=torch.Generator().manual_seed(data_seed)) + offset
    what = _for_x(
        "center_columns(x)", x, (f" with values around {offset:.3g}", f"、数值在 {offset:.3g} 附近")
    )
    got = expect_tensor(learner.center_columns(x), what)
    assert_shape(got, (n, d), what)
    rtol, atol = _center_tol(x)
    wide = got.detach().cpu().double()
    means = wide.mean(dim=0)
    if not torch.allclose(means, torch.zeros_like(means), atol=atol):
        _name_center_mistake(got, x, x - x.mean(dim=0, keepdim=True), rtol, atol, what)
        j = int(means.abs().argmax())
        we, wz = names(what)
        fail(
            f"{we}: every column of the result should have mean 0, but column {j} has mean "
            f"{means[j].item():.6g}.",
            f"{wz}：结果的每一列均值都应为 0，但第 {j} 列的均值为 {means[j].item():.6g}。",
            evidence=["values_differ"],
        )
    shift = x.double() - wide  # what was subtracted: the same value down each column
    if not torch.allclose(shift, shift[:1].expand_as(shift), atol=atol):
        we, wz = names(what)
        fail(
            f"{we}: each column should be shifted by one value (its mean), but the amount "
            "subtracted changes from row to row.",
            f"{wz}：每一列都应该整体减去同一个值（该列的均值），但你减去的值在不同行之间不一样。",
            evidence=["values_differ"],
        )


# ---------------------------------------------------------------------------------------------
# iou_matrix


def _check_pairing_shape(got, n, m, what):
    """The (N, M) shape, naming the classic wrong pairing of the broadcast dims."""
    got = expect_tensor(got, what)
    if n != m and tuple(got.shape) == (m, n):
        we, wz = names(what)
        fail(
            f"{we} should have shape ({n}, {m}), but yours has shape ({m}, {n}): {_SWAPPED_EN}",
            f"{wz} 的形状应为 ({n}, {m})，但你的结果形状为 ({m}, {n})：{_SWAPPED_ZH}",
            evidence=["wrong_shape", "pairs_swapped"],
        )
    assert_shape(got, (n, m), what)
    return got


_SWAPPED_EN = (
    "your result pairs the boxes the wrong way round: it is the (M, N) matrix iou_matrix(b, a). "
    "Put the boxes of a along dim 0 and those of b along dim 1: a[:, None, :] against "
    "b[None, :, :]."
)
_SWAPPED_ZH = (
    "你的结果把两组框的配对方向弄反了：它是 (M, N) 的矩阵 iou_matrix(b, a)。"
    "应当让 a 的框沿第 0 维、b 的框沿第 1 维：a[:, None, :] 对 b[None, :, :]。"
)


def _disjoint(a, b):
    """(N, M) True where the boxes share no area (touching counts as disjoint)."""
    width = torch.minimum(a[:, None, 2], b[None, :, 2]) - torch.maximum(
        a[:, None, 0], b[None, :, 0]
    )
    height = torch.minimum(a[:, None, 3], b[None, :, 3]) - torch.maximum(
        a[:, None, 1], b[None, :, 1]
    )
    return (width <= 0) | (height <= 0)


def _iou_sides(a, b, extra=0.0):
    """The overlap's (N, M) width and height and the boxes' areas, in float64, unclamped;
    ``extra=1`` counts the pixels of whole-number corners on both ends (the "+ 1" convention)."""
    a, b = a.detach().cpu().double(), b.detach().cpu().double()
    width = torch.minimum(a[:, None, 2], b[None, :, 2]) - torch.maximum(
        a[:, None, 0], b[None, :, 0]
    )
    height = torch.minimum(a[:, None, 3], b[None, :, 3]) - torch.maximum(
        a[:, None, 1], b[None, :, 1]
    )
    area_a = (a[:, 2] - a[:, 0] + extra) * (a[:, 3] - a[:, 1] + extra)
    area_b = (b[:, 2] - b[:, 0] + extra) * (b[:, 3] - b[:, 1] + extra)
    return width + extra, height + extra, area_a[:, None], area_b[None, :]


def _iou_of(inter, area_a, area_b):
    return inter / (area_a + area_b - inter)


def _unclamped_ious(a, b):
    """IoU as the usual slips about disjoint boxes compute it: no clamp, the product clamped,
    only the width or only the height clamped."""
    w, h, area_a, area_b = _iou_sides(a, b)
    for inter in (w * h, (w * h).clamp(min=0), w.clamp(min=0) * h, w * h.clamp(min=0)):
        yield _iou_of(inter, area_a, area_b)


def _plus_one_iou(a, b):
    w, h, area_a, area_b = _iou_sides(a, b, extra=1.0)
    return _iou_of(w.clamp(min=0) * h.clamp(min=0), area_a, area_b)


def _union_double_counted(a, b):
    w, h, area_a, area_b = _iou_sides(a, b)
    return w.clamp(min=0) * h.clamp(min=0) / (area_a + area_b)


def _enclosing_box_iou(a, b):
    """The corners taken the wrong way round: the minimum of the top-left corners and the
    maximum of the bottom-right ones bound the box enclosing both, not their overlap."""
    a, b = a.detach().cpu().double(), b.detach().cpu().double()
    width = torch.maximum(a[:, None, 2], b[None, :, 2]) - torch.minimum(
        a[:, None, 0], b[None, :, 0]
    )
    height = torch.maximum(a[:, None, 3], b[None, :, 3]) - torch.minimum(
        a[:, None, 1], b[None, :, 1]
    )
    _, _, area_a, area_b = _iou_sides(a, b)
    return _iou_of(width.clamp(min=0) * height.clamp(min=0), area_a, area_b)


def _iou_of_reference(a, b):
    """The right IoU matrix, from a and b, in float64 on the CPU."""
    w, h, area_a, area_b = _iou_sides(a, b)
    return _iou_of(w.clamp(min=0) * h.clamp(min=0), area_a, area_b)


def _corner_product_areas_iou(a, b):
    """The areas as x2 * y2, as if the boxes were (x, y, w, h): the overlap right, the union not."""
    w, h, _, _ = _iou_sides(a, b)
    a, b = a.detach().cpu().double(), b.detach().cpu().double()
    area_a, area_b = (a[:, 2] * a[:, 3])[:, None], (b[:, 2] * b[:, 3])[None, :]
    return _iou_of(w.clamp(min=0) * h.clamp(min=0), area_a, area_b)


def _side_sum_areas_iou(a, b):
    """The areas as width + height, a sum where the product was due."""
    w, h, _, _ = _iou_sides(a, b)
    a, b = a.detach().cpu().double(), b.detach().cpu().double()
    area_a = ((a[:, 2] - a[:, 0]) + (a[:, 3] - a[:, 1]))[:, None]
    area_b = ((b[:, 2] - b[:, 0]) + (b[:, 3] - b[:, 1]))[None, :]
    return _iou_of(w.clamp(min=0) * h.clamp(min=0), area_a, area_b)


def _smaller_area_iou(a, b):
    """The overlap over the smaller box's area (intersection over minimum, a containment
    score), not over the union."""
    w, h, area_a, area_b = _iou_sides(a, b)
    return w.clamp(min=0) * h.clamp(min=0) / torch.minimum(area_a, area_b)


def _first_area_iou(a, b):
    """The overlap over the area of a's box alone."""
    w, h, area_a, _ = _iou_sides(a, b)
    return w.clamp(min=0) * h.clamp(min=0) / area_a


def _second_area_iou(a, b):
    """The overlap over the area of b's box alone."""
    w, h, _, area_b = _iou_sides(a, b)
    return w.clamp(min=0) * h.clamp(min=0) / area_b


_IOU_MISTAKES = (
    (
        _corner_product_areas_iou,
        "iou_area_of_corner",
        "your overlaps are right, but your areas are x2 * y2 (box[:, 2] * box[:, 3]), as if "
        "the boxes were (x, y, width, height). They are corners (x1, y1, x2, y2): a box's "
        "area is (x2 - x1) * (y2 - y1).",
        "你的重叠部分是对的，但面积算成了 x2 * y2（box[:, 2] * box[:, 3]），好像框的格式是 "
        "(x, y, 宽, 高)。这里的框是角点 (x1, y1, x2, y2)：框的面积是 (x2 - x1) * (y2 - y1)。",
    ),
    (
        _side_sum_areas_iou,
        "iou_area_summed",
        "your overlaps are right, but your areas are (x2 - x1) + (y2 - y1), the width plus "
        "the height: an area is their product, (x2 - x1) * (y2 - y1).",
        "你的重叠部分是对的，但面积算成了 (x2 - x1) + (y2 - y1)，即宽加高：面积是它们的乘积，"
        "(x2 - x1) * (y2 - y1)。",
    ),
    (
        _enclosing_box_iou,
        "iou_enclosing_box",
        "your values are those of the box enclosing both boxes, not of their overlap: the "
        "overlap's top-left corner is the maximum of the two top-left corners "
        "(torch.maximum(a[:, None, :2], b[None, :, :2])) and its bottom-right corner the "
        "minimum of the two bottom-right ones (torch.minimum); you took them the other way "
        "round.",
        "你的结果对应的是同时包住两个框的外接框，而不是它们的重叠部分：重叠部分的左上角是两个左上角中的"
        "最大值（torch.maximum(a[:, None, :2], b[None, :, :2])），右下角是两个右下角中的最小值"
        "（torch.minimum）；你把它们取反了。",
    ),
    (
        _plus_one_iou,
        "pixel_inclusive_boxes",
        "your values are those of the pixel convention, widths x2 - x1 + 1 and heights "
        "y2 - y1 + 1 (as in old detection code on whole-pixel corners). These boxes have "
        "continuous coordinates: a box's width is x2 - x1, and boxes that only touch share "
        "nothing. Drop the + 1 from the overlap and from the areas.",
        "你的结果符合像素约定的公式：宽为 x2 - x1 + 1、高为 y2 - y1 + 1（旧的检测代码在整数像素坐标上"
        "这样算）。这里的框是连续坐标：宽就是 x2 - x1，只是相接的框没有公共部分。"
        "请把重叠部分和面积里的 + 1 都去掉。",
    ),
    (
        _union_double_counted,
        "union_counts_overlap_twice",
        "your values are intersection / (area_a + area_b): that sum counts the shared area "
        "twice, so identical boxes give 0.5 instead of 1. The union is area_a + area_b - "
        "intersection.",
        "你的结果是 交集 / (area_a + area_b)：这个和把公共部分算了两次，所以两个相同的框得到 0.5 而不是 1。"
        "并集应为 area_a + area_b - 交集。",
    ),
    (
        _smaller_area_iou,
        "iou_over_smaller_area",
        "your values are intersection / min(area_a, area_b), the overlap over the smaller "
        "box's area: a box inside a larger one gets 1, as if the two were the same box. IoU "
        "divides by the union, area_a + area_b - intersection.",
        "你的结果是 交集 / min(area_a, area_b)，即重叠面积除以较小框的面积：一个框被更大的框包住时"
        "得到 1，好像两个框完全相同。IoU 要除以并集：area_a + area_b - 交集。",
    ),
    (
        _first_area_iou,
        "iou_over_one_area",
        "your values are intersection / area_a, the overlap over the area of a's box alone: "
        "the part of b's box outside a's never counts. IoU divides by the union, "
        "area_a + area_b - intersection.",
        "你的结果是 交集 / area_a，即重叠面积只除以 a 中框的面积：b 的框在 a 之外的部分完全没有算进去。"
        "IoU 要除以并集：area_a + area_b - 交集。",
    ),
    (
        _second_area_iou,
        "iou_over_one_area",
        "your values are intersection / area_b, the overlap over the area of b's box alone: "
        "the part of a's box outside b's never counts. IoU divides by the union, "
        "area_a + area_b - intersection.",
        "你的结果是 交集 / area_b，即重叠面积只除以 b 中框的面积：a 的框在 b 之外的部分完全没有算进去。"
        "IoU 要除以并集：area_a + area_b - 交集。",
    ),
)


_OVER_AREA = {"iou_over_smaller_area", "iou_over_one_area"}
_OVER_AREA_EN = (
    "your overlaps are right, but you divided them by one box's area (the smaller box's, or "
    "the box of a or of b: on these boxes they give the same values), not by the union: a box "
    "inside a larger one gets 1, as if the two were the same box. IoU divides by the union, "
    "area_a + area_b - intersection."
)
_OVER_AREA_ZH = (
    "你的重叠面积是对的，但除以的是一个框的面积（较小框的面积，或 a 或 b 中框的面积：在这些框上它们"
    "结果相同），而不是并集：一个框被更大的框包住时得到 1，好像两个框完全相同。IoU 要除以并集："
    "area_a + area_b - 交集。"
)


def _same(mine, values, where=None):
    if where is not None:
        mine, values = mine[where], values[where]
    return bool(torch.isclose(mine, values, rtol=1e-4, atol=1e-5, equal_nan=True).all())


def _name_iou_mistake(mine, expected, a, b, what):
    """Fail with a named message when a wrong IoU matrix is, value for value, one of the
    classic wrong formulas computed from a and b."""
    if _same(mine, expected):
        return
    fitting = [
        (tag, en, zh) for formula, tag, en, zh in _IOU_MISTAKES if _same(mine, formula(a, b))
    ]
    story = sole_story(fitting)
    if story is None and fitting and all(tag in _OVER_AREA for tag, _, _ in fitting):
        # the smaller box's area and one box's area give the same values where the smaller
        # box is always on one side: which of them was used is not known, but in each the
        # overlap is right and the union is not the denominator
        story = ("iou_over_smaller_area", _OVER_AREA_EN, _OVER_AREA_ZH)
    if story is not None:
        tag, en, zh = story
        we, wz = names(what)
        fail(f"{we}: {en}", f"{wz}：{zh}", evidence=["values_differ", tag])


def _check_iou(got, a, b, want, what, *, disjoint=True, pairing=True):
    """Compare with the reference, naming the wrong pairing and unclamped overlaps.

    ``disjoint=False`` (the values test): pairs of boxes that share no area are left out, since
    "disjoint or touching boxes give 0" is judged by the disjoint and property tests.
    ``pairing=False`` (those tests): a result paired the wrong way round, (M, N) for N != M, is
    judged transposed, since the pairing is the values test's.
    """
    n, m = len(a), len(b)
    got = expect_tensor(got, what)
    if not pairing and n != m and tuple(got.shape) == (m, n):
        got = got.t()
    got = _check_pairing_shape(got, n, m, what)
    apart = _disjoint(a.detach().cpu(), b.detach().cpu()) if n and m else None
    if got.device.type != "meta" and n and m:
        mine, expected = got.detach().cpu().to(want.dtype), want.cpu()
        if (
            pairing
            and n == m
            and n > 1
            and not torch.allclose(mine, expected, rtol=1e-4, atol=1e-5)
            and torch.allclose(mine, expected.t(), rtol=1e-4, atol=1e-5)
        ):
            we, wz = names(what)
            fail(
                f"{we}: with N == M the shape is right, but {_SWAPPED_EN}",
                f"{wz}：N == M 时形状碰巧正确，但{_SWAPPED_ZH}",
                evidence=["values_differ", "pairs_swapped"],
            )
        _name_iou_mistake(mine.double(), expected.double(), a, b, what)
        wrong = apart & (mine != 0)
        if disjoint and bool(wrong.any()):
            i, j = (int(v) for v in wrong.nonzero()[0])
            box_i = [round(v, 3) for v in a[i].tolist()]
            box_j = [round(v, 3) for v in b[j].tolist()]
            we, wz = names(what)
            # The clamp is named only when the values at the disjoint pairs are those of an
            # unclamped overlap; any other non-zero value there is only reported.
            if not any(_same(mine.double(), v, apart) for v in _unclamped_ious(a, b)):
                fail(
                    f"{we}: boxes {box_i} and {box_j} share no area, so their IoU is 0, but "
                    f"yours is {mine[i, j].item():.6g} (at [{i}, {j}]).",
                    f"{wz}：框 {box_i} 与 {box_j} 没有公共区域，IoU 应为 0，但你的结果是 "
                    f"{mine[i, j].item():.6g}（位于 [{i}, {j}]）。",
                    evidence=["values_differ"],
                )
            fail(
                f"{we}: boxes {box_i} and {box_j} share no area, so their IoU is 0, but yours is "
                f"{mine[i, j].item():.6g} (at [{i}, {j}]). When boxes do not overlap, the overlap's "
                "width or height comes out negative (two negatives even multiply to a positive "
                "area): clamp the width and the height at 0, each on its own, before multiplying.",
                f"{wz}：框 {box_i} 与 {box_j} 没有公共区域，IoU 应为 0，但你的结果是 "
                f"{mine[i, j].item():.6g}（位于 [{i}, {j}]）。两个框不重叠时，重叠部分的宽或高会是负数"
                "（两个负数相乘甚至得到正的面积）：请在相乘之前把宽和高分别截断到 0。",
                evidence=["values_differ", "overlap_not_clamped"],
            )
    if got.device.type == "meta":
        return
    # Values only (on the CPU): the dtype and the device have their own tests.
    mine, expected = got.detach().cpu(), want.detach().cpu()
    if not disjoint and apart is not None:
        keep = ~apart
        mine = torch.where(keep, mine, torch.zeros((), dtype=mine.dtype))
        expected = torch.where(keep, expected, torch.zeros((), dtype=expected.dtype))
    assert_close(mine, expected, what, rtol=1e-4, atol=1e-5, check_dtype=False)


IOU_SIZES = [(5, 3), (4, 4), (1, 6), (3, 1), (7, 7), (0, 2), (2, 0)]


def _for_boxes(a, b, note=("", "")):
    return Text(
        f"iou_matrix(a, b) for a of shape {tuple(a.shape)} and b of shape {tuple(b.shape)}"
        f"{note[0]}",
        f"a 的形状为 {tuple(a.shape)}、b 的形状为 {tuple(b.shape)}{note[1]}时的 iou_matrix(a, b)",
    )


def test_iou_values(learner, reference, device, rng):
    # The pairing, shape and IoU of overlapping boxes; disjoint and touching pairs (IoU 0) are
    # the disjoint and property tests'.
    cases = [(_boxes(rng, n), _boxes(rng, m), ("", "")) for n, m in IOU_SIZES]
    cases.append(
        (
            _boxes(rng, 4).t().contiguous().t(),
            _boxes(rng, 6)[::2],
            (" (a transposed and a sliced view)", "（一个转置视图和一个切片视图）"),
        )
    )
    cases.append(
        (
            _boxes(rng, 3, torch.float64),
            _boxes(rng, 5, torch.float64),
            (" (float64)", "（float64）"),
        )
    )
    for a, b, note in cases:
        a, b = a.to(device), b.to(device)
        what = _for_boxes(a, b, note)
        _check_iou(learner.iou_matrix(a, b), a, b, reference.iou_matrix(a, b), what, disjoint=False)


# Boxes whose relations are known: identical, nested, partly overlapping, touching along an edge
# or at a corner, apart along x only, along y only, and apart along both.
BOXES_A = [[0.0, 0.0, 2.0, 2.0], [10.0, 10.0, 12.0, 13.0], [0.0, 0.0, 4.0, 4.0]]
BOXES_B = [
    [0.0, 0.0, 2.0, 2.0],  # identical to a[0]
    [2.0, 0.0, 4.0, 2.0],  # touches a[0] along its right edge
    [2.0, 2.0, 3.0, 3.0],  # touches a[0] at a corner
    [5.0, 0.0, 6.0, 2.0],  # beside a[0]: apart along x only
    [0.0, 5.0, 2.0, 6.0],  # above a[0]: apart along y only
    [5.0, 5.0, 7.0, 8.0],  # apart along both x and y
    [1.0, 1.0, 3.0, 3.0],  # overlaps a[0] partly
    [0.5, 0.5, 1.5, 1.5],  # inside a[0]
]


def test_iou_disjoint_and_touching(learner, reference, device):
    a, b = torch.tensor(BOXES_A), torch.tensor(BOXES_B)
    for first, second, args in ((a, b, "a, b"), (b, a, "b, a")):
        first, second = first.to(device), second.to(device)
        what = Text(
            f"iou_matrix({args}) for boxes that touch, nest, overlap or lie apart",
            f"对相接、嵌套、重叠或相离的框计算的 iou_matrix({args})",
        )
        want = reference.iou_matrix(first, second)
        got = learner.iou_matrix(first, second)
        _check_iou(got, first, second, want, what, pairing=False)


@settings(parent=PROPERTY, max_examples=15)
@given(
    boxes=st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(1, 4), st.integers(1, 4)),
        min_size=1,
        max_size=7,
    ),
)
def test_iou_property(learner, reference, boxes):
    # Whole-number corners and sizes: touching, nested and identical boxes come up often. The
    # boxes are compared with each other, iou_matrix(a, a), so the pairing of a with b (the
    # values test's) plays no part: right (disjoint and touching pairs give 0), symmetric, and
    # 1 for a box with itself.
    a = torch.tensor([[x, y, x + w, y + h] for x, y, w, h in boxes], dtype=torch.float32)
    where = f"a={a.int().tolist()}"
    what = Text(f"iou_matrix(a, a) for {where}", f"{where} 时的 iou_matrix(a, a)")
    got = learner.iou_matrix(a, a)
    _check_iou(got, a, a, reference.iou_matrix(a, a), what, pairing=False)
    aa = got.detach().cpu().float()
    if not torch.allclose(aa, aa.t(), rtol=1e-5, atol=1e-6):
        fail(
            f"iou_matrix(a, a) for {where}: IoU is symmetric, so the IoU of a[i] and a[j] is "
            "the IoU of a[j] and a[i], but yours is not.",
            f"iou_matrix(a, a)（{where}）：IoU 是对称的，a[i] 与 a[j] 的 IoU 等于 a[j] 与 a[i] 的 "
            "IoU，但你的结果不是。",
            evidence=["values_differ"],
        )
    if not torch.allclose(aa.diagonal(), torch.ones(len(a)), rtol=1e-5, atol=1e-6):
        fail(
            f"iou_matrix(a, a) for {where}: every box has IoU 1 with itself, but the diagonal of "
            f"yours is {aa.diagonal().tolist()}.",
            f"iou_matrix(a, a)（{where}）：每个框与自身的 IoU 都是 1，但你的结果对角线为 "
            f"{aa.diagonal().tolist()}。",
            evidence=["values_differ"],
        )


# ---------------------------------------------------------------------------------------------
# Devices


def test_results_on_input_device(learner, device, rng):
    # Meta tensors carry a device but no data: a tensor made on the CPU next to them fails here
    # exactly as it would next to CUDA inputs. Only the device is judged here.
    x = torch.randn(5, 3, generator=rng).to(device)
    a, b = _boxes(rng, 4).to(device), _boxes(rng, 2).to(device)
    for name, args, what in (
        (
            "pairwise_distance",
            (x,),
            Text(
                f"pairwise_distance(x) for x of shape (5, 3) on {device}",
                f"x 的形状为 (5, 3)、位于 {device} 时的 pairwise_distance(x)",
            ),
        ),
        (
            "center_columns",
            (x,),
            Text(
                f"center_columns(x) for x of shape (5, 3) on {device}",
                f"x 的形状为 (5, 3)、位于 {device} 时的 center_columns(x)",
            ),
        ),
        (
            "iou_matrix",
            (a, b),
            Text(
                f"iou_matrix(a, b) for boxes a (4, 4) and b (2, 4) on {device}",
                f"框 a (4, 4) 和 b (2, 4) 位于 {device} 时的 iou_matrix(a, b)",
            ),
        ),
    ):
        if device == "meta":
            got = on_meta(learner, name, args, what)
        else:
            got = getattr(learner, name)(*args)
        assert_device(expect_tensor(got, what), device, what)


def test_keeps_dtype(learner, rng):
    # Only the dtype, for float64 inputs: the values are the other tests'.
    x = torch.randn(6, 4, generator=rng, dtype=torch.float64)
    for name, args, what in (
        (
            "pairwise_distance",
            (x,),
            _for_x("pairwise_distance(x)", x, (" (float64)", "（float64）")),
        ),
        ("center_columns", (x,), _for_x("center_columns(x)", x, (" (float64)", "（float64）"))),
    ):
        _keeps_dtype(expect_tensor(getattr(learner, name)(*args), what), torch.float64, what)
    a, b = _boxes(rng, 3, torch.float64), _boxes(rng, 5, torch.float64)
    what = _for_boxes(a, b, (" (float64)", "（float64）"))
    _keeps_dtype(expect_tensor(learner.iou_matrix(a, b), what), torch.float64, what)
