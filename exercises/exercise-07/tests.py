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

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import (
    assert_close,
    assert_device,
    assert_dtype,
    assert_no_loops,
    assert_ops_constant,
    assert_shape,
    expect_tensor,
    fail,
    on_meta,
)
from grader.testing.properties import PROPERTY

# ---------------------------------------------------------------------------------------------
# Inputs


def _layouts(rows, cols, rng, device, dtype=torch.float32):
    """A random (rows, cols) matrix as a transposed view and as a sliced view."""
    yield " (a transposed view)", torch.randn(cols, rows, generator=rng, dtype=dtype).to(device).t()
    yield (
        " (a sliced view)",
        torch.randn(rows, 2 * cols, generator=rng, dtype=dtype).to(device)[:, ::2],
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


PAIRWISE_SHAPES = [(5, 3), (1, 4), (2, 1), (8, 16), (6, 2), (0, 3)]


def test_pairwise_values(learner, reference, device, rng):
    cases = [(torch.randn(n, d, generator=rng).to(device), "") for n, d in PAIRWISE_SHAPES]
    cases += [(x, note) for note, x in _layouts(7, 3, rng, device)]
    cases.append((torch.randn(6, 4, generator=rng, dtype=torch.float64).to(device), " (float64)"))
    for x, note in cases:
        rtol, atol = _float_tol(x.dtype)
        assert_close(
            learner.pairwise_distance(x),
            reference.pairwise_distance(x),
            f"pairwise_distance(x) for x of shape {tuple(x.shape)}{note}",
            rtol=rtol,
            atol=atol,
        )


def test_pairwise_diagonal_exactly_zero(learner, device, rng):
    # 40 points far from the origin (coordinates near 100), two of them identical: the rounding
    # errors of |x|^2 + |y|^2 - 2 x.y are then large, and 40 rows is past cdist's switch to it.
    x = 100 + 10 * torch.randn(40, 6, generator=rng)
    x[17] = x[5]
    x = x.to(device)
    what = "pairwise_distance(x) for 40 points with coordinates near 100"
    got = expect_tensor(learner.pairwise_distance(x), what)
    assert_shape(got, (40, 40), what)
    assert_dtype(got, torch.float32, what)
    assert_device(got, device, what)
    values = got.detach().cpu()
    bad = ~torch.isfinite(values)
    if bool(bad.any()):
        i, j = (int(v) for v in bad.nonzero()[0])
        fail(
            f"{what} holds {values[i, j].item()} at [{i}, {j}]: a distance is always a finite "
            "number. With |x|^2 + |y|^2 - 2 x.y, rounding can make a squared distance slightly "
            "negative, and its square root is NaN. Clamp it at 0 before sqrt (clamp_min(0)), or "
            "subtract the points first.",
            f"{what} 在 [{i}, {j}] 处为 {values[i, j].item()}：距离总是有限的数。用 "
            "|x|^2 + |y|^2 - 2 x.y 计算时，舍入误差会让平方距离变成很小的负数，开方就得到 NaN。"
            "请在 sqrt 之前把它截断到 0（clamp_min(0)），或者先把两点相减。",
            evidence=[
                "values_differ",
                "nan_in_output" if values[i, j].isnan() else "inf_in_output",
            ],
        )
    diagonal = values.diagonal()
    off = (diagonal != 0).nonzero()
    if off.numel():
        i = int(off[0])
        fail(
            f"{what}: the diagonal should be exactly 0 (each point's distance to itself), but "
            f"yours holds {diagonal[i].item():.6g} at [{i}, {i}] ({off.numel()} of 40 diagonal "
            "values are not 0). The usual cause is the rounding error of |x|^2 + |y|^2 - 2 x.y "
            "(torch.cdist also uses it for more than 25 rows), or a small number added before "
            "sqrt: subtract the points first (x[:, None, :] - x[None, :, :]), or set the diagonal "
            "to 0 afterwards.",
            f"{what}：对角线应当恰好为 0（每个点到自身的距离），但你的结果在 [{i}, {i}] 处为 "
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
)


def _name_center_mistake(got, x, want, rtol, atol, what):
    """Fail with a named message when a wrong result is a classic wrong reduction of x."""
    if got.device.type == "meta" or got.shape != x.shape or not x.numel():
        return
    mine, xs = got.detach().cpu().to(want.dtype), x.detach().cpu().to(want.dtype)
    if torch.allclose(mine, want.cpu(), rtol=rtol, atol=atol):
        return
    for tag, mistake, en, zh in _CENTER_MISTAKES:
        wrong = mistake(xs)
        if wrong is not None and torch.allclose(mine, wrong, rtol=rtol, atol=atol):
            fail(
                f"{what}: your result {en}. A column's mean averages over the rows, which is "
                "dim=0: x.mean(dim=0, keepdim=True) has shape (1, d).",
                f"{what}：你的结果{zh}。一列的均值是对所有行求平均，也就是 dim=0："
                "x.mean(dim=0, keepdim=True) 的形状为 (1, d)。",
                evidence=["values_differ", tag],
            )


def _center_tol(x):
    scale = float(x.detach().abs().max()) if x.numel() else 0.0
    if x.dtype == torch.float32:
        return 1e-5, 1e-5 * (1 + scale)
    return 1e-7, 1e-9 * (1 + scale)


def _check_centered(got, x, want, what):
    got = expect_tensor(got, what)
    assert_shape(got, want.shape, what)
    rtol, atol = _center_tol(x)
    _name_center_mistake(got, x, want, rtol, atol, what)
    assert_close(got, want, what, rtol=rtol, atol=atol)


CENTER_SHAPES = [(3, 3), (4, 3), (1, 5), (6, 1), (7, 2), (0, 3)]


def test_center_columns_values(learner, reference, device, rng):
    cases = [(_columns_with_offsets(rng, n, d, device), "") for n, d in CENTER_SHAPES]
    base = _columns_with_offsets(rng, 6, 8, device)
    cases.append((base.t().contiguous().t(), " (a transposed view)"))
    cases.append((base[::2, 1::2], " (a sliced view)"))
    cases.append((_columns_with_offsets(rng, 5, 3, device, torch.float64), " (float64)"))
    for x, note in cases:
        what = f"center_columns(x) for x of shape {tuple(x.shape)}{note}"
        _check_centered(learner.center_columns(x), x, reference.center_columns(x), what)


def test_center_columns_edge_cases(learner, reference, device, rng):
    constant = torch.tensor([[2.0, 0.1, -7.5]]).repeat(5, 1)
    constant[:, 1] = torch.randn(5, generator=rng)  # one varying column between two constant ones
    cases = [
        (constant, "with two constant columns"),
        (torch.randn(1, 4, generator=rng), "(a single row)"),
        (torch.randn(5, 1, generator=rng) + 3, "(a single column)"),
    ]
    for x, note in cases:
        x = x.to(device)
        what = f"center_columns(x) for x of shape {tuple(x.shape)} {note}"
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
    what = f"center_columns(x) for x of shape ({n}, {d}) with values around {offset:.3g}"
    got = expect_tensor(learner.center_columns(x), what)
    assert_shape(got, (n, d), what)
    assert_dtype(got, torch.float32, what)
    rtol, atol = _center_tol(x)
    wide = got.detach().cpu().double()
    means = wide.mean(dim=0)
    if not torch.allclose(means, torch.zeros_like(means), atol=atol):
        _name_center_mistake(got, x, x - x.mean(dim=0, keepdim=True), rtol, atol, what)
        j = int(means.abs().argmax())
        fail(
            f"{what}: every column of the result should have mean 0, but column {j} has mean "
            f"{means[j].item():.6g}.",
            f"{what}：结果的每一列均值都应为 0，但第 {j} 列的均值为 {means[j].item():.6g}。",
            evidence=["values_differ"],
        )
    shift = x.double() - wide  # what was subtracted: the same value down each column
    if not torch.allclose(shift, shift[:1].expand_as(shift), atol=atol):
        fail(
            f"{what}: each column should be shifted by one value (its mean), but the amount "
            "subtracted changes from row to row.",
            f"{what}：每一列都应该整体减去同一个值（该列的均值），但你减去的值在不同行之间不一样。",
            evidence=["values_differ"],
        )


# ---------------------------------------------------------------------------------------------
# iou_matrix


def _check_pairing_shape(got, n, m, what):
    """The (N, M) shape, naming the classic wrong pairing of the broadcast dims."""
    got = expect_tensor(got, what)
    if n != m and tuple(got.shape) == (m, n):
        fail(
            f"{what} should have shape ({n}, {m}), but yours has shape ({m}, {n}): {_SWAPPED_EN}",
            f"{what} 的形状应为 ({n}, {m})，但你的结果形状为 ({m}, {n})：{_SWAPPED_ZH}",
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


def _check_iou(got, a, b, want, what):
    """Compare with the reference, naming the wrong pairing and unclamped overlaps."""
    n, m = len(a), len(b)
    got = _check_pairing_shape(got, n, m, what)
    if got.device.type != "meta" and n and m:
        mine, expected = got.detach().cpu().to(want.dtype), want.cpu()
        if (
            n == m
            and n > 1
            and not torch.allclose(mine, expected, rtol=1e-4, atol=1e-5)
            and torch.allclose(mine, expected.t(), rtol=1e-4, atol=1e-5)
        ):
            fail(
                f"{what}: with N == M the shape is right, but {_SWAPPED_EN}",
                f"{what}：N == M 时形状碰巧正确，但{_SWAPPED_ZH}",
                evidence=["values_differ", "pairs_swapped"],
            )
        wrong = _disjoint(a.detach().cpu(), b.detach().cpu()) & (mine != 0)
        if bool(wrong.any()):
            i, j = (int(v) for v in wrong.nonzero()[0])
            box_i = [round(v, 3) for v in a[i].tolist()]
            box_j = [round(v, 3) for v in b[j].tolist()]
            fail(
                f"{what}: boxes {box_i} and {box_j} share no area, so their IoU is 0, but yours is "
                f"{mine[i, j].item():.6g} (at [{i}, {j}]). When boxes do not overlap, the overlap's "
                "width or height comes out negative (two negatives even multiply to a positive "
                "area): clamp the width and the height at 0, each on its own, before multiplying.",
                f"{what}：框 {box_i} 与 {box_j} 没有公共区域，IoU 应为 0，但你的结果是 "
                f"{mine[i, j].item():.6g}（位于 [{i}, {j}]）。两个框不重叠时，重叠部分的宽或高会是负数"
                "（两个负数相乘甚至得到正的面积）：请在相乘之前把宽和高分别截断到 0。",
                evidence=["values_differ", "overlap_not_clamped"],
            )
    assert_close(got, want, what, rtol=1e-4, atol=1e-5)


IOU_SIZES = [(5, 3), (4, 4), (1, 6), (3, 1), (7, 7), (0, 2), (2, 0)]


def test_iou_values(learner, reference, device, rng):
    cases = [(_boxes(rng, n), _boxes(rng, m), "") for n, m in IOU_SIZES]
    cases.append(
        (
            _boxes(rng, 4).t().contiguous().t(),
            _boxes(rng, 6)[::2],
            " (a transposed and a sliced view)",
        )
    )
    cases.append((_boxes(rng, 3, torch.float64), _boxes(rng, 5, torch.float64), " (float64)"))
    for a, b, note in cases:
        a, b = a.to(device), b.to(device)
        what = f"iou_matrix(a, b) for a of shape {tuple(a.shape)} and b of shape {tuple(b.shape)}{note}"
        _check_iou(learner.iou_matrix(a, b), a, b, reference.iou_matrix(a, b), what)


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
    for first, second, names in ((a, b, "a, b"), (b, a, "b, a")):
        first, second = first.to(device), second.to(device)
        what = f"iou_matrix({names}) for boxes that touch, nest, overlap or lie apart"
        want = reference.iou_matrix(first, second)
        _check_iou(learner.iou_matrix(first, second), first, second, want, what)


@settings(parent=PROPERTY, max_examples=15)
@given(
    boxes=st.lists(
        st.tuples(st.integers(0, 5), st.integers(0, 5), st.integers(1, 4), st.integers(1, 4)),
        min_size=1,
        max_size=6,
    ),
    split=st.integers(0, 6),
)
def test_iou_property(learner, reference, boxes, split):
    # Whole-number corners and sizes: touching, nested and identical boxes come up often.
    every = torch.tensor([[x, y, x + w, y + h] for x, y, w, h in boxes], dtype=torch.float32)
    k = min(split, len(boxes) - 1)
    a, b = every[: k + 1], every[k:]
    where = f"a={a.int().tolist()}, b={b.int().tolist()}"
    ab = learner.iou_matrix(a, b)
    _check_iou(ab, a, b, reference.iou_matrix(a, b), f"iou_matrix(a, b) for {where}")
    ba = _check_pairing_shape(
        learner.iou_matrix(b, a), len(b), len(a), f"iou_matrix(b, a) for {where}"
    )
    aa = _check_pairing_shape(
        learner.iou_matrix(a, a), len(a), len(a), f"iou_matrix(a, a) for {where}"
    )
    ab, ba, aa = (t.detach().cpu().float() for t in (ab, ba, aa))
    if not torch.allclose(ab, ba.t(), rtol=1e-5, atol=1e-6):
        fail(
            f"iou_matrix for {where}: IoU is symmetric, so iou_matrix(b, a) should be "
            "iou_matrix(a, b) transposed, but yours is not.",
            f"iou_matrix（{where}）：IoU 是对称的，所以 iou_matrix(b, a) 应当等于 "
            "iou_matrix(a, b) 的转置，但你的结果不是。",
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


def test_results_on_input_device(learner):
    # Meta tensors carry a device but no data: a tensor made on the CPU next to them fails here
    # exactly as it would next to CUDA inputs.
    x = torch.empty(5, 3, device="meta")
    a, b = torch.empty(4, 4, device="meta"), torch.empty(2, 4, device="meta")
    for name, args, what, shape in (
        ("pairwise_distance", (x,), "pairwise_distance(x) for a meta x of shape (5, 3)", (5, 5)),
        ("center_columns", (x,), "center_columns(x) for a meta x of shape (5, 3)", (5, 3)),
        ("iou_matrix", (a, b), "iou_matrix(a, b) for meta boxes a (4, 4) and b (2, 4)", (4, 2)),
    ):
        got = expect_tensor(on_meta(learner, name, args, what), what)
        assert_device(got, "meta", what)
        if name == "iou_matrix":
            _check_pairing_shape(got, *shape, what)
        assert_shape(got, shape, what)
        assert_dtype(got, torch.float32, what)
