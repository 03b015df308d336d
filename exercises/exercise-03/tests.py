"""Hidden tests of exercise-03: indexing, masks and views.

Pitfalls from the seeds:
- a boolean mask selects: x[mask] is a 1-D tensor of the chosen elements (003 §2.1), unlike
  torch.where(mask, x, 0) or x * mask, which keep x's shape and only zero the others; the
  selection follows row-major order whatever x's memory layout (000 §4.1);
- "greater than" is strict: an element or score equal to the threshold is left out (ties), and a
  mask that selects nothing gives an empty result of shape (0,) or (0, 4) (000 §4.1, confidence
  filtering preds[conf_mask]); the mask has one entry per box, so it indexes the rows, and the
  boxes keep their order;
- flattening with view() fails on a transposed or sliced x (000 §2.3, 001 §5.2);
- slicing returns a view that shares memory with x: writing into it changes x (000 §4.3,
  003 §2.1, 001 §5.1); .clone() makes an independent copy, while .contiguous() returns the slice
  itself when it is already contiguous (a block as wide as x, or a single element);
- a new tensor made without device= lives on the CPU (000 §3.3): meta inputs catch it. Copying a
  meta tensor into a CPU one raises NotImplementedError, which the engine would report as "not
  implemented yet", so the meta case runs through a scenario that names the mistake instead.
"""

from collections import Counter

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing import (
    assert_device,
    assert_device_follows,
    assert_equal,
    call_on_meta,
    describe,
    describe_zh,
    expect_tensor,
    fail,
    follows_reported_cuda,
    names,
    shares,
    view_difference,
)
from grader.testing.properties import PROPERTY


def _on(device):
    return "" if device == "cpu" else f", device={device!r}"


def _equal_here(got, want, what):
    """Shape, dtype and values, compared on the CPU: where the result lives is judged by the
    device tests alone."""
    got = expect_tensor(got, what)
    _keeps_dtype(got, want.dtype, what)
    assert_equal(got.detach().cpu(), want.detach().cpu(), what)


def _keeps_dtype(got, dtype, what):
    """The result has the input's dtype (a new diagnosis: dtype-not-kept)."""
    if got.dtype == dtype:
        return
    we, wz = names(what)
    want, yours = str(dtype).removeprefix("torch."), str(got.dtype).removeprefix("torch.")
    fail(
        f"{we} should keep the input's dtype, {want}, but yours has dtype {yours}.",
        f"{wz} 应当保持输入的 dtype {want}，但你的结果是 {yours}。",
        evidence=["wrong_dtype", "dtype_not_kept"],
    )


def _indexed_by_nonzero(x, mask):
    """x[torch.nonzero(mask)], the answer of indexing with nonzero's (M, x.dim()) matrix, or
    None where that indexing fails (an index past the first dim's size)."""
    try:
        return x[torch.nonzero(mask)]
    except (IndexError, RuntimeError):
        return None


def _replaced(got, x, kept):
    """Whether ``got`` (x's shape) is x with the unselected positions replaced: the selected
    ones hold x's values and some unselected one does not (torch.where, x * mask). x returned
    as it was is not zeroed: nothing was replaced."""
    got, x, kept = got.detach().cpu(), x.detach().cpu(), kept.detach().cpu()
    if got.shape != x.shape or bool(kept.all()):
        return False
    return _same(got[kept], x[kept]) and not _same(got[~kept], x[~kept])


def _same(a, b):
    """Same shape and values (on the CPU, any dtype)."""
    a, b = a.detach().cpu(), b.detach().cpu()
    return a.shape == b.shape and bool(torch.equal(a.to(torch.float64), b.to(torch.float64)))


# ---------------------------------------------------------------------------------------------
# positives


def _check_positives(learner, reference, x, code):
    what = f"positives(x) (x = {code})"
    got = expect_tensor(learner.positives(x), what)
    want = reference.positives(x)
    zeros = int((x == 0).sum())
    # >= is told only where a 0 was kept and >= still dropped something
    if zeros and bool((x < 0).any()) and not _same(got, want) and _same(got, x[x >= 0]):
        fail(
            f"{what} should leave out the {zeros} element(s) equal to 0, but yours keeps them: "
            "0 is not > 0. Use >, not >=.",
            f"{what} 应该排除 {zeros} 个等于 0 的元素，但你的结果保留了它们：0 并不大于 0。"
            "请用 >，而不是 >=。",
            evidence=["values_differ", "inclusive_threshold"],
        )
    if tuple(got.shape) == tuple(x.shape) != tuple(want.shape) and _replaced(got, x, x > 0):
        fail(
            f"{what} should be a 1-D tensor of the {want.numel()} elements > 0, of shape "
            f"({want.numel()},), but yours has the shape of x, {tuple(x.shape)}: it keeps every "
            "position and only replaces the others (torch.where or multiplying by the mask). "
            "Indexing with the mask, x[x > 0], selects the elements.",
            f"{what} 应该是由 {want.numel()} 个大于 0 的元素组成的一维张量，形状为 ({want.numel()},)，"
            f"但你的结果形状与 x 相同，为 {tuple(x.shape)}：它保留了所有位置，只是替换了其他元素"
            "（torch.where 或乘以掩码）。用掩码做索引 x[x > 0] 才是筛选元素。",
            evidence=["wrong_shape", "zeroed_not_selected"],
        )
    by_index = _indexed_by_nonzero(x, x > 0)
    if by_index is not None and not _same(got, want) and _same(got, by_index):
        fail(
            f"{what} should have shape ({want.numel()},), but yours has shape "
            f"{tuple(got.shape)}: torch.nonzero(mask) returns the indices as a matrix with one "
            "row per element, (M, x.dim()) (for a 1-D x an (M, 1) column), and indexing x with "
            "that matrix picks whole slices of x by their first index, not the elements. Index "
            "with the mask itself, x[x > 0] (or with torch.nonzero(mask, as_tuple=True)).",
            f"{what} 的形状应为 ({want.numel()},)，但你的结果形状为 {tuple(got.shape)}："
            "torch.nonzero(mask) 把下标返回成每个元素一行的矩阵 (M, x.dim())（一维 x 时是 (M, 1) "
            "的一列），用这个矩阵索引 x 取出的是按第一个下标选出的整片切片，而不是这些元素。"
            "请直接用掩码索引：x[x > 0]（或用 torch.nonzero(mask, as_tuple=True)）。",
            evidence=["wrong_shape", "size_one_dims", "nonzero_column_index"],
        )
    if got.dim() == 0 and tuple(want.shape) == (1,):
        fail(
            f"{what} holds one element > 0, so the answer is a 1-D tensor of shape (1,), but "
            "yours is 0-d: a squeeze() with no dim (after torch.nonzero, say) removed that "
            "size-1 dimension too. Index with the mask, x[x > 0], or name the dim: squeeze(1).",
            f"{what} 中只有一个大于 0 的元素，答案是形状为 (1,) 的一维张量，但你的结果是 0 维的："
            "不带 dim 的 squeeze()（例如在 torch.nonzero 之后）把这个长度为 1 的维度也删掉了。"
            "请用掩码做索引 x[x > 0]，或指明维度：squeeze(1)。",
            evidence=["wrong_shape", "squeezed_too_much"],
        )
    _equal_here(got, want, what)


def test_positives_values(learner, reference, device, rng):
    d = _on(device)
    cases = [
        (f"torch.randn(6{d})", torch.randn(6, generator=rng)),
        (f"torch.randn(4, 5{d})", torch.randn(4, 5, generator=rng)),
        (f"torch.randn(5, dtype=torch.float64{d})", torch.randn(5, generator=rng).double()),
        (f"torch.randint(-3, 4, (3, 4, 2){d})", torch.randint(-3, 4, (3, 4, 2), generator=rng)),
        (f"-torch.rand(3, 3{d}) - 0.1", -torch.rand(3, 3, generator=rng) - 0.1),
        (f"torch.zeros(0, 4{d})", torch.zeros(0, 4)),
        # exactly one element > 0: the answer is still 1-D, of shape (1,)
        (f"torch.tensor([[-1.0, 2.0], [-3.0, 0.0]]{d})", torch.tensor([[-1.0, 2.0], [-3.0, 0.0]])),
    ]
    for code, x in cases:
        _check_positives(learner, reference, x.to(device), code)


def _layout_cases_positives(rng, device):
    d = _on(device)
    return [
        (f"torch.randn(4, 5{d}).t()", torch.randn(4, 5, generator=rng).to(device).t()),
        (f"torch.randn(3, 8{d})[:, ::2]", torch.randn(3, 8, generator=rng).to(device)[:, ::2]),
        (
            f"torch.randn(2, 3, 4{d}).permute(2, 0, 1)",
            torch.randn(2, 3, 4, generator=rng).to(device).permute(2, 0, 1),
        ),
        (
            f"torch.randint(-2, 3, (5, 6){d})[1:, ::3]",
            torch.randint(-2, 3, (5, 6), generator=rng).to(device)[1:, ::3],
        ),
    ]


def _same_as_contiguous(got, fresh, what):
    """The learner's answer for views equals its own answer for contiguous copies of them."""
    got = expect_tensor(got, what)
    fresh = expect_tensor(fresh, what)
    if got.shape == fresh.shape and got.dtype == fresh.dtype and _same(got, fresh):
        return
    we, wz = what.en, what.zh
    diff_en, diff_zh = view_difference(got, fresh)
    fail(
        f"{we} differs from your own answer for contiguous copies of the same inputs "
        f"(.contiguous()): {diff_en}. The memory layout "
        "must not change the result: a mask selects in row-major order whatever the strides.",
        f"{wz} 与你对同样输入的连续副本（.contiguous()）给出的结果不同："
        f"{diff_zh}。内存布局不能改变结果："
        "无论步长如何，掩码都按行优先顺序选取元素。",
        evidence=["values_differ", "layout_changes_result"],
    )


def test_positives_any_layout(learner, device, rng):
    # The learner is compared with itself: its answer for a view, against its answer for a
    # contiguous copy of that view. What the answer should be is test_positives_values's.
    for code, x in _layout_cases_positives(rng, device):
        what = Text(f"positives(x) for x = {code}", f"x = {code} 时的 positives(x)")
        got = learner.positives(x)
        _same_as_contiguous(got, learner.positives(x.contiguous()), what)


# ---------------------------------------------------------------------------------------------
# filter_boxes


def _boxes(rng, n):
    """n boxes (x1, y1, x2, y2) with positive width and height."""
    corner = torch.rand(n, 2, generator=rng) * 100
    size = torch.rand(n, 2, generator=rng) * 50 + 1
    return torch.cat([corner, corner + size], dim=1)


def _rows(t):
    return sorted(map(tuple, t.detach().cpu().tolist()))


def _check_filter(learner, reference, boxes, scores, threshold, what_en, what_zh):
    got = expect_tensor(learner.filter_boxes(boxes, scores, threshold), what_en)
    want = reference.filter_boxes(boxes, scores, threshold)
    n, m = boxes.shape[0], want.shape[0]
    ties = int((scores == threshold).sum())
    inclusive = (scores >= threshold).to(boxes.device)
    # >= is told only where a tie was kept and >= still dropped a box (else the answer may be
    # the boxes unfiltered)
    if ties and not bool(inclusive.all()) and not _same(got, want) and _same(got, boxes[inclusive]):
        fail(
            f"{what_en} should drop the {ties} box(es) whose score equals the threshold "
            f"{threshold}, but yours keeps them: the score must be strictly greater. Use >, not >=.",
            f"{what_zh.rstrip()}：结果应该丢弃 {ties} 个分数恰好等于阈值 {threshold} 的框，但你的结果保留了它们："
            "分数必须严格大于阈值。请用 >，而不是 >=。",
            evidence=["values_differ", "inclusive_threshold"],
        )
    keep = (scores > threshold).to(boxes.device)
    if n >= 2 and not _same(got, want) and _same(got, boxes[keep.long()]):
        fail(
            f"{what_en} should keep the {m} rows whose score is > {threshold}, but yours is "
            f"{n} rows that are all copies of boxes 0 and 1: the mask was turned into integers "
            "(.int(), .long(), torch.where(..., 1, 0)), and integers index rows by number, so "
            "each 1 picks row 1 and each 0 picks row 0. Index with the bool mask itself: "
            "boxes[scores > threshold].",
            f"{what_zh.rstrip()}：结果应该保留分数 > {threshold} 的 {m} 行，但你的结果是 {n} 行、全是第 0 "
            "和第 1 个框的副本：掩码被转换成了整数（.int()、.long()、torch.where(..., 1, 0)），而整数是按"
            "编号索引行的，每个 1 取第 1 行，每个 0 取第 0 行。请直接用布尔掩码索引："
            "boxes[scores > threshold]。",
            evidence=["values_differ", "int_mask_indexes"],
        )
    if tuple(got.shape) == tuple(boxes.shape) != tuple(want.shape) and _replaced(
        got, boxes, keep[:, None].expand_as(boxes)
    ):
        fail(
            f"{what_en} should keep only the {m} rows whose score is > {threshold}, shape "
            f"({m}, 4), but yours has all {n} rows: it replaces the dropped boxes instead of "
            "leaving them out. Index the rows with the mask: boxes[scores > threshold].",
            f"{what_zh.rstrip()}：结果应该只保留分数 > {threshold} 的 {m} 行，形状为 ({m}, 4)，但你的结果保留了全部 "
            f"{n} 行：它替换了要丢弃的框，而不是把它们去掉。请用掩码索引行：boxes[scores > threshold]。",
            evidence=["wrong_shape", "zeroed_not_selected"],
        )
    mask = (scores > threshold).to(boxes.device)
    if got.dim() == 3 and _same(got, boxes[torch.nonzero(mask)]):
        fail(
            f"{what_en} should have shape ({m}, 4), but yours has shape {tuple(got.shape)}: "
            "torch.nonzero(mask) returns the indices as a column of shape (M, 1), and indexing "
            "boxes with an (M, 1) index gives (M, 1, 4). Index with the mask itself, "
            "boxes[scores > threshold] (or with torch.nonzero(mask, as_tuple=True)).",
            f"{what_zh.rstrip()}：结果的形状应为 ({m}, 4)，但你的结果形状为 {tuple(got.shape)}："
            "torch.nonzero(mask) 返回的下标是形状为 (M, 1) 的一列，用 (M, 1) 的下标索引 boxes 得到 "
            "(M, 1, 4)。请直接用掩码索引：boxes[scores > threshold]（或用 "
            "torch.nonzero(mask, as_tuple=True)）。",
            evidence=["wrong_shape", "size_one_dims", "nonzero_column_index"],
        )
    if n == boxes.shape[1] and not _same(got, want) and _same(got, boxes[:, mask]):
        fail(
            f"{what_en}: yours selects columns (boxes[:, mask]), but the mask has one entry per "
            "box, that is per row: boxes[mask].",
            f"{what_zh.rstrip()}：你的结果选出的是列（boxes[:, mask]），但掩码是每个框一个元素，也就是每行一个："
            "应该用 boxes[mask]。",
            evidence=["values_differ", "mask_on_wrong_dim"],
        )
    if got.shape == want.shape and not _same(got, want) and _rows(got) == _rows(want):
        fail(
            f"{what_en} keeps the right boxes but not in their original order; the rows must stay "
            "in the order they have in boxes (do not sort them by score).",
            f"{what_zh.rstrip()}：保留的框是对的，但顺序变了；各行必须保持它们在 boxes 中的原有顺序（不要按分数排序）。",
            evidence=["values_differ", "order_changed"],
        )
    _equal_here(got, want, what_en)


def _filter_case(learner, reference, boxes, scores, threshold, code):
    what = f"filter_boxes(boxes, scores, {threshold}) ({code})"
    _check_filter(learner, reference, boxes, scores, threshold, what, what + " ")


def _scores_code(scores):
    values = ", ".join(f"{v:.3g}" for v in scores.tolist())
    return f"scores = [{values}]"


def test_filter_boxes_values(learner, reference, device, rng):
    mixed = torch.rand(10, generator=rng)
    mixed[0], mixed[1] = 0.6, 0.99  # passing boxes that are not in order of score
    one = torch.rand(5, generator=rng) * 0.4
    one[2] = 0.8
    cases = [
        (10, mixed, 0.5),
        (4, torch.tensor([0.9, 0.2, 0.7, 0.4]), 0.5),
        (5, one, 0.5),
        (6, torch.rand(6, generator=rng) * 0.9, 0.95),
        (5, torch.rand(5, generator=rng), -1.0),
        (0, torch.zeros(0), 0.5),
    ]
    for n, scores, threshold in cases:
        boxes = _boxes(rng, n).to(device)
        code = f"boxes.shape = ({n}, 4), {_scores_code(scores)}"
        _filter_case(learner, reference, boxes, scores.to(device), threshold, code)
    # other dtypes: the boxes keep theirs
    pixels = _boxes(rng, 8).long().to(device)
    _filter_case(
        learner,
        reference,
        pixels,
        torch.rand(8, generator=rng).to(device),
        0.25,
        "boxes.dtype = torch.int64, boxes.shape = (8, 4)",
    )
    wide = _boxes(rng, 8).double().to(device)
    _filter_case(
        learner,
        reference,
        wide,
        torch.rand(8, generator=rng).double().to(device),
        0.5,
        "boxes.dtype = scores.dtype = torch.float64, boxes.shape = (8, 4)",
    )


LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)


def _kept_boxes(learner, device, levels, threshold):
    """(what, the answer, the kept rows as a sorted list or None, the rows due) for boxes
    whose box i holds 4i, 4i+1, 4i+2, 4i+3 (easy to tell apart in a message)."""
    n = len(levels)
    boxes = torch.arange(4.0 * n).reshape(n, 4).to(device)
    scores = torch.tensor(levels, dtype=torch.float32).reshape(n).to(device)
    what = f"filter_boxes(boxes, scores, {threshold}) (scores = {list(levels)})"
    got = expect_tensor(learner.filter_boxes(boxes, scores, threshold), what)
    kept = _rows(got.reshape(-1, 4)) if got.numel() % 4 == 0 else None
    want = [tuple(4.0 * i + c for c in range(4)) for i, v in enumerate(levels) if v > threshold]
    return what, got, kept, want


def _ties_kept(kept, want, levels, threshold):
    """The answer keeps the boxes due and, beyond them, only boxes whose score is a tie: what
    >= gives (and, where no score lies below the threshold, the boxes unfiltered too)."""
    if kept is None:
        return False
    # counted, not as sets: an integer mask (boxes[(scores > t).int()]) indexes rows 0 and 1
    # over and over, and as a set that read as "the due boxes and a tie"
    mine, due = Counter(kept), Counter(want)
    if any(count > 1 for count in mine.values()):
        return False  # a box more than once: no filter at all
    extra = mine - due
    return (
        bool(extra) and not (due - mine) and all(levels[int(r[0]) // 4] == threshold for r in extra)
    )


@PROPERTY
@given(
    levels=st.lists(st.sampled_from(LEVELS), max_size=6),
    threshold=st.sampled_from(LEVELS[:4]),
)
def test_filter_boxes_strictly_greater(learner, device, levels, threshold):
    # Which boxes are kept, and only that: their order and the result's shape are
    # test_filter_boxes_values's, so the kept rows are compared as a set.
    what, got, kept, want = _kept_boxes(learner, device, levels, threshold)
    if kept == want:
        return
    if _ties_kept(kept, want, levels, threshold):
        # >= is told only where it still drops a box: boxes returned unfiltered also keep the
        # ties. Where none lies below the threshold, one more box below it tells them apart.
        probe = levels if min(levels) < threshold else [*levels, threshold - 0.25]
        p_what, p_kept, p_want = what, kept, want
        if probe is not levels:
            p_what, _, p_kept, p_want = _kept_boxes(learner, device, probe, threshold)
        if (
            min(probe) < threshold
            and p_kept != p_want
            and _ties_kept(p_kept, p_want, probe, threshold)
        ):
            ties = sum(v == threshold for v in probe)
            fail(
                f"{p_what} should drop the {ties} box(es) whose score equals the threshold "
                f"{threshold}, but yours keeps them: the score must be strictly greater. Use >, "
                "not >=.",
                f"{p_what}：结果应该丢弃 {ties} 个分数恰好等于阈值 {threshold} 的框，但你的结果保留了"
                "它们：分数必须严格大于阈值。请用 >，而不是 >=。",
                evidence=["values_differ", "inclusive_threshold"],
            )
    kept_boxes = [int(r[0]) // 4 for r in kept] if kept is not None else None
    fail(
        f"{what} should keep exactly the boxes whose score is > {threshold}, boxes "
        f"{[i for i, v in enumerate(levels) if v > threshold]} (box i holds 4i ... 4i+3), but "
        + (
            f"yours keeps boxes {kept_boxes}."
            if kept_boxes is not None
            else f"yours is {describe(got)}."
        ),
        f"{what}：结果应该恰好保留分数 > {threshold} 的框，即第 "
        f"{[i for i, v in enumerate(levels) if v > threshold]} 个框（第 i 个框的值为 4i ... 4i+3），但"
        + (
            f"你的结果保留的是第 {kept_boxes} 个框。"
            if kept_boxes is not None
            else f"你的结果是 {describe_zh(got)}。"
        ),
        evidence=["values_differ"],
    )


def test_filter_boxes_any_layout(learner, device, rng):
    # The learner is compared with itself: its answer for transposed or sliced boxes and scores,
    # against its answer for contiguous copies. What the answer should be is the values test's.
    n = 8
    cases = [
        (
            _boxes(rng, n).t().contiguous().to(device).t(),
            torch.rand(2 * n, generator=rng).to(device)[::2],
            "boxes = b.t(), b.shape = (4, 8), scores = s[::2], s.shape = (16,)",
        ),
        (
            _boxes(rng, 2 * n).double().to(device)[::2],
            torch.rand(n, generator=rng).double().to(device),
            "boxes = b[::2], b.shape = (16, 4), boxes.dtype = scores.dtype = torch.float64",
        ),
    ]
    for boxes, scores, code in cases:
        what = Text(
            f"filter_boxes(boxes, scores, 0.5) for {code}",
            f"{code} 时的 filter_boxes(boxes, scores, 0.5)",
        )
        got = learner.filter_boxes(boxes, scores, 0.5)
        fresh = learner.filter_boxes(boxes.contiguous(), scores.contiguous(), 0.5)
        _same_as_contiguous(got, fresh, what)


# ---------------------------------------------------------------------------------------------
# corner_copy


def write_into_corner(module, x, k):
    """Write 999 into the learner's corner_copy(x, k) and say whether x changed."""
    before = x.clone()
    out = module.corner_copy(x, k)
    if not isinstance(out, torch.Tensor) or out.numel() == 0:
        return {"changed": False}
    out.fill_(999)
    return {"changed": not torch.equal(x, before), "x00": x[0, 0].item()}


def _corner_cases(rng, device):
    """(code, x, k) for the values test, views and edge cases included."""
    d = _on(device)
    return [
        (f"torch.randn(5, 6{d})", torch.randn(5, 6, generator=rng).to(device), 3),
        (f"torch.randn(5, 3{d})", torch.randn(5, 3, generator=rng).to(device), 3),
        (f"torch.randn(3, 5{d})", torch.randn(3, 5, generator=rng).to(device), 3),
        (f"torch.randn(4, 4{d})", torch.randn(4, 4, generator=rng).to(device), 4),
        (f"torch.randn(4, 4{d})", torch.randn(4, 4, generator=rng).to(device), 1),
        (f"torch.randn(3, 3{d})", torch.randn(3, 3, generator=rng).to(device), 0),
        (
            f"torch.randint(0, 9, (4, 5){d})",
            torch.randint(0, 9, (4, 5), generator=rng).to(device),
            2,
        ),
        (f"torch.randn(6, 4{d}).t()", torch.randn(6, 4, generator=rng).to(device).t(), 3),
        (f"torch.randn(4, 10{d})[:, ::2]", torch.randn(4, 10, generator=rng).to(device)[:, ::2], 4),
    ]


def _block_off_by_one(got, x, k, what):
    """Name the block one row and one column short or long, x[:k - 1, :k - 1] or
    x[:k + 1, :k + 1]: a slice's end is excluded, so x[:k] already holds k rows (0 to k - 1)."""
    if x.device.type == "meta" or not isinstance(got, torch.Tensor):
        return
    for j, en, zh in (
        (
            k - 1,
            "one short: x[:k - 1] stops before row k - 1",
            "少了一行一列：x[:k - 1] 停在第 k - 1 行之前",
        ),
        (
            k + 1,
            "one too many: x[:k + 1] goes on to row k",
            "多了一行一列：x[:k + 1] 一直取到第 k 行",
        ),
    ):
        if j < 0 or j > min(x.shape) or j == k or x[:j, :j].shape == x[:k, :k].shape:
            continue
        if tuple(got.shape) != (j, j) or not _same(got, x[:j, :j]):
            continue
        fail(
            f"{what} should have shape {tuple(x[:k, :k].shape)}, but yours has shape "
            f"{tuple(got.shape)}, {en}. A slice's end is excluded: x[:k, :k] already holds "
            "rows and columns 0 to k - 1, k of each.",
            f"{what} 的形状应为 {tuple(x[:k, :k].shape)}，但你的结果形状为 {tuple(got.shape)}，"
            f"{zh}。切片不包含终点：x[:k, :k] 已经包含第 0 到 k - 1 行和列，各 k 个。",
            evidence=["wrong_shape", "slice_end_off_by_one"],
        )


def _rows_only(got, x, k, what):
    """Name a block of the first k rows with every column: the columns never sliced, as in
    x[:k][:k], whose second [:k] slices the rows of x[:k] again."""
    if x.shape[1] == k or x.device.type == "meta" or not isinstance(got, torch.Tensor):
        return
    if not _same(got, x[:k]):
        return
    fail(
        f"{what} should have shape {tuple(x[:k, :k].shape)}, but yours has shape "
        f"{tuple(got.shape)}: it is x[:k], the first {k} rows with all {x.shape[1]} columns. "
        "Chained indexing does this: in x[:k][:k] the second [:k] slices the rows of x[:k] "
        "again, not its columns. Slice both dimensions in one index: x[:k, :k].",
        f"{what} 的形状应为 {tuple(x[:k, :k].shape)}，但你的结果形状为 {tuple(got.shape)}："
        f"它是 x[:k]，即前 {k} 行的全部 {x.shape[1]} 列。链式索引就会这样：x[:k][:k] 中的第二个 "
        "[:k] 切的仍是 x[:k] 的行，而不是列。请在一次索引中切两个维度：x[:k, :k]。",
        evidence=["wrong_shape", "rows_sliced_twice"],
    )


_CORNERS = (
    ("x[:k, -k:]", "the top-right", "右上", lambda x, k: x[:k, -k:]),
    ("x[-k:, :k]", "the bottom-left", "左下", lambda x, k: x[-k:, :k]),
    ("x[-k:, -k:]", "the bottom-right", "右下", lambda x, k: x[-k:, -k:]),
)


def _other_corner(got, x, k, what):
    """Name another corner of x taken for the top-left one: only where the answer is that
    corner alone, and not the top-left block (which a constant x would also be)."""
    if k == 0 or x.device.type == "meta" or not isinstance(got, torch.Tensor):
        return
    if _same(got, x[:k, :k]):
        return
    fits = [c for c in _CORNERS if _same(got, c[3](x, k))]
    if len(fits) == 1:  # two corners are one block where k is x's height or width: say neither
        code, en, zh, _ = fits[0]
        we, wz = names(what)
        fail(
            f"{we}: yours is {code}, {en} corner of x. The corner asked for is the top-left "
            "one, the first k rows and the first k columns: x[:k, :k].",
            f"{wz}：你的结果是 {code}，即 x 的{zh}角。要求的是左上角，也就是前 k 行、前 k 列："
            "x[:k, :k]。",
            evidence=["values_differ"],
        )


def test_corner_copy_values(learner, reference, device, rng):
    for code, x, k in _corner_cases(rng, device):
        what = f"corner_copy(x, {k}) (x = {code})"
        got = learner.corner_copy(x, k)
        _rows_only(got, x, k, what)
        _other_corner(got, x, k, what)
        _block_off_by_one(got, x, k, what)
        _first_values(got, x, k, what)
        _equal_here(got, reference.corner_copy(x, k), what)


def _first_values(got, x, k, what):
    """Name a block of the first k * k values of x in row-major order, regrouped as (k, k)
    (x.clone().resize_(k, k), x.flatten()[:k * k].reshape(k, k)): only where that is the
    answer and the top-left block is not."""
    if k == 0 or x.device.type == "meta" or not isinstance(got, torch.Tensor):
        return
    first = x.flatten()[: k * k].reshape(k, k)
    if not _same(got, first) or _same(got, x[:k, :k]):
        return
    fail(
        f"{what}: yours holds the first {k * k} values of x in row-major order, regrouped as "
        f"({k}, {k}) (what x.flatten()[:k * k].reshape(k, k) or x.clone().resize_(k, k) give). "
        f"Reshaping and resize_ regroup values in order; they never cut a block out of the "
        "rows: take the first k values of each of the first k rows, x[:k, :k].clone().",
        f"{what}：你的结果是 x 按行优先顺序的前 {k * k} 个值，重新分组成 ({k}, {k})"
        "（x.flatten()[:k * k].reshape(k, k) 或 x.clone().resize_(k, k) 就会得到它）。"
        "reshape 和 resize_ 只是按顺序重新分组，不会从各行中切出一块：请取前 k 行中每行的前 k 个值，"
        "x[:k, :k].clone()。",
        evidence=["values_differ", "first_values_regrouped"],
    )


def _contiguous_note(x, k):
    if not x[:k, :k].is_contiguous():
        return "", ""
    return (
        " Here the block x[:k, :k] is already contiguous, so .contiguous() (or .reshape) returns "
        "it as it is, without copying; only .clone() always copies.",
        "这里的块 x[:k, :k] 本身已经是连续的，所以 .contiguous()（或 .reshape）会原样返回它，"
        "不做复制；只有 .clone() 总会复制。",
    )


def test_corner_copy_independent(learner, reference, device, rng):
    x = torch.randn(5, 6, generator=rng).to(device)
    seen = learner.run(write_into_corner, x, 3)
    if seen["changed"]:
        fail(
            "Writing 999 into the result of corner_copy(x, 3) changed x too (x[0, 0] became "
            f"{seen['x00']:g}): your result is a view that shares x's memory. Slicing returns a "
            "view (and .detach() or .data of it shares that memory too); .clone() makes an "
            "independent copy.",
            f"向 corner_copy(x, 3) 的结果写入 999 后，x 也被改变了（x[0, 0] 变成了 {seen['x00']:g}）："
            "你的结果是与 x 共享内存的视图。切片返回的是视图（对它调用 .detach() 或 .data 也仍然共享这块内存）；"
            ".clone() 才会得到独立的副本。",
            evidence=["shares_memory"],
        )
    for code, x, k in _corner_cases(rng, device):
        if k == 0:
            continue  # an empty block has nothing to write into
        what = f"corner_copy(x, {k}) (x = {code})"
        got = expect_tensor(learner.corner_copy(x, k), what)
        if shares(got):
            note_en, note_zh = _contiguous_note(x, k)
            fail(
                f"{what} shares memory with x: writing into it would change x too.{note_en} "
                "Return an independent copy, e.g. x[:k, :k].clone().",
                f"{what} 与 x 共享内存：写入它也会改变 x。{note_zh}"
                "请返回独立的副本，例如 x[:k, :k].clone()。",
                evidence=["shares_memory"],
            )


def test_corner_copy_on_input_device(learner, device, rng, learner_source):
    d = _on(device)
    cases = [
        (f"torch.randn(5, 6{d})", torch.randn(5, 6, generator=rng).to(device), 3),
        (
            f"torch.randint(0, 9, (4, 5){d})",
            torch.randint(0, 9, (4, 5), generator=rng).to(device),
            2,
        ),
    ]
    for code, x, k in cases:
        what = f"corner_copy(x, {k}) (x = {code})"
        if device == "meta":
            # Both a copy out of meta and code that reads values come back as data: the copy is
            # named with this exercise's own advice, and reading values skips the case.
            answer = learner.run(call_on_meta, "corner_copy", [x, k], catch_reads=True)
            if "copied_out_of_meta" in answer:
                fail(
                    f"{what} should return its copy on x's device (meta), but yours copies x into "
                    'a tensor made on the CPU, which fails for a meta x ("Cannot copy out of meta '
                    'tensor") and would silently leave the result on the CPU for a GPU x. Create '
                    "it on x's device (x.new_empty, torch.empty_like, device=x.device), or use "
                    "x[:k, :k].clone().",
                    f"{what} 应该在 x 所在的设备（meta）上返回副本，但你的代码把 x 复制进了一个在 CPU "
                    '上创建的张量：对 meta 的 x 会失败（"Cannot copy out of meta tensor"），对 GPU '
                    "上的 x 则会让结果悄悄地留在 CPU 上。请在 x 所在的设备上创建它（x.new_empty、"
                    "torch.empty_like、device=x.device），或者使用 x[:k, :k].clone()。",
                    evidence=["wrong_device", "created_on_cpu"],
                )
            if "reads_values" in answer:
                # Meta cannot run code that reads values, and the error that says so may be the
                # learner's own: never a skip. The device is then judged from the source alone
                # (a limit of this case: the tensors must be made on x's device, with no test of
                # which device it is).
                assert_device_follows(learner_source, "corner_copy", what)
                continue
            got = answer["value"]
        else:
            got = learner.corner_copy(x, k)
        # Only the device: the block's values and dtype are test_corner_copy_values's.
        assert_device(expect_tensor(got, what), device, what)


def test_selections_on_input_device(learner, device, rng):
    # A mask's selection has a size that depends on the values, which meta tensors do not
    # have, so positives and filter_boxes cannot run on meta. Without a GPU, CPU tensors that
    # report cuda:1 stand in: a result made without the inputs' device (a Python loop into
    # torch.tensor(...)) comes back a plain CPU tensor. Only the device is judged.
    if device == "cpu":
        x = torch.randn(4, 5, generator=rng)
        follows_reported_cuda(learner, "positives", [x], "positives(x) (x = torch.randn(4, 5))")
        boxes, scores = _boxes(rng, 6), torch.rand(6, generator=rng)
        what = Text("filter_boxes(boxes, scores, 0.5)", "filter_boxes(boxes, scores, 0.5)")
        follows_reported_cuda(learner, "filter_boxes", [boxes, scores, 0.5], what)
        return
    x = torch.randn(4, 5, generator=rng).to(device)
    what = f"positives(x) (x = torch.randn(4, 5, device={device!r}))"
    assert_device(expect_tensor(learner.positives(x), what), device, what)
    boxes = _boxes(rng, 6).to(device)
    scores = torch.rand(6, generator=rng).to(device)
    what = Text(
        f"filter_boxes(boxes, scores, 0.5) for boxes and scores on {device}",
        f"boxes 和 scores 位于 {device} 时的 filter_boxes(boxes, scores, 0.5)",
    )
    assert_device(expect_tensor(learner.filter_boxes(boxes, scores, 0.5), what), device, what)
