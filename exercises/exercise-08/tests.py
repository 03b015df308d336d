"""Hidden tests of exercise-08: reductions with dim and keepdim.

Seed pitfalls covered:
- 000 §5.4, 003 §2.3: dim=0 and dim=1 confused ("the rite of passage of every beginner"). Square
  inputs come first, where the mistake keeps the shape and only the values give it away; the
  failing result is compared with the classic mistakes to name them.
- 000 §5.4: keepdim=True forgotten or added: (1, d) instead of (d,), or a per-row maximum of
  shape (n,) subtracted from (n, d), which lines it up with the columns (an error when n != d,
  silently wrong values when n == d).
- row_max returns values and int64 indices; on ties any maximal index is right, so indices are
  checked by pointing at a maximal element, never compared with the reference's choice. A
  namedtuple (what x.max(dim=1) returns) is fine.
- 000 §8.4 (NaN/inf): softmax without subtracting each row's max overflows for rows holding
  1000.0 (inf / inf = NaN); subtracting the max of the whole tensor instead underflows rows far
  below it (0 / 0 = NaN). The property test states the lesson: softmax(x + c) == softmax(x).
- torch.softmax, Tensor.softmax, F.softmax and log_softmax are forbidden in softmax_rows
  (static and traced check); torch.logsumexp is fine.
- Tensors created on the CPU whatever the input's device: meta tensors stand in for a GPU.
"""

import ast

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import (
    CheckFailed,
    Opaque,
    assert_close,
    assert_device,
    assert_dtype,
    assert_equal,
    assert_not_forbidden,
    assert_shape,
    describe,
    describe_zh,
    expect_tensor,
    fail,
    names,
    on_meta,
    sole_story,
)
from grader.testing.analysis.slips import bare_calls, keeps_dims
from grader.testing.checks import assert_shape_of
from grader.testing.properties import PROPERTY

# ---------------------------------------------------------------------------------------------
# Shapes of reductions


def _check_reduced_shape(got, x, dim, what, expected=None, squeezes=(), keeps=None):
    """``got`` has the shape of a reduction of x (n, d) along ``dim``; names the classic slips.
    ``expected``: the answer due, to say how a wrong shape relates to it; ``squeezes``: the
    learner's lines with a .squeeze() that names no dim; ``keeps``: the lines of the function
    that may keep a reduced dim (keepdim, topk), None where the source cannot tell."""
    n, d = x.shape
    want = (d,) if dim == 0 else (n,)
    shape = tuple(got.shape)
    if shape == want:
        return
    kept = (1, d) if dim == 0 else (n, 1)
    if shape == kept and keeps == ():
        # the shape keepdim=True gives, from code that passes no keepdim (nor topk): a size-1
        # dim added afterwards (unsqueeze, a None index, a reshape with a 1)
        what_en, what_zh = names(what)
        fail(
            f"{what_en} should have shape {_fmt(want)}, but yours has shape {_fmt(shape)}: an "
            f"extra size-1 dimension, dim {dim}, where the reduced one was. Your code passes no "
            "keepdim=True: find the step that adds it back (an unsqueeze, a None index, a "
            "reshape or view with a 1) and leave it out; the reduction's own result is the "
            "answer.",
            f"{what_zh} 的形状应为 {_fmt(want)}，但你的结果形状为 {_fmt(shape)}：在被归约的维度处"
            f"多了一个长度为 1 的维度（第 {dim} 维）。你的代码并没有传 keepdim=True：请找出又把它加回来的"
            "那一步（unsqueeze、None 索引、带 1 的 reshape 或 view）并去掉它；归约本身的结果就是答案。",
            evidence=["wrong_shape", "size_one_dims"],
        )
    if shape == kept:
        what_en, what_zh = names(what)
        fail(
            f"{what_en} should have shape {_fmt(want)}, but yours has shape {_fmt(shape)}: the "
            "reduced dimension was kept. keepdim=True keeps it with size 1; leave it out when the "
            "reduced tensor is the answer (topk(1, dim=...) always keeps it: take [:, 0] of "
            "each of its results, or use max(dim=...)).",
            f"{what_zh} 的形状应为 {_fmt(want)}，但你的结果形状为 {_fmt(shape)}：被归约的维度被保留了下来。"
            "keepdim=True 会把它保留为长度 1 的维度；当归约结果本身就是答案时，不要加它"
            "（topk(1, dim=...) 总会保留它：对它的每个结果取 [:, 0]，或者改用 max(dim=...)）。",
            evidence=["wrong_shape", "keepdim_kept"],
        )
    wrong_dim = {(n,) if dim == 0 else (d,), (n, 1) if dim == 0 else (1, d)}
    if n != d and shape in wrong_dim:
        what_en, what_zh = names(what)
        fail(
            f"{what_en} should have shape {_fmt(want)}, but yours has shape {_fmt(shape)}: it "
            f"reduced dim={1 - dim} instead of dim={dim}. "
            + (
                "One value per column means averaging down the rows: dim=0."
                if dim == 0
                else "One value per row means reducing across the columns: dim=1."
            ),
            f"{what_zh} 的形状应为 {_fmt(want)}，但你的结果形状为 {_fmt(shape)}：它归约的是 dim={1 - dim}，"
            f"而不是 dim={dim}。"
            + (
                "每列一个值，就要沿行方向归约：dim=0。"
                if dim == 0
                else "每行一个值，就要跨列归约：dim=1。"
            ),
            evidence=["wrong_shape", "reduced_wrong_dim"],
        )
    if shape == () and (d if dim == 0 else n) == 1:
        # one value was due, (1,): the whole-tensor reduction gives the same value, so the
        # learner's dim says nothing; a size-1 dim was dropped
        _dropped_size_one(got, want, what, expected, squeezes)
    elif shape == ():
        what_en, what_zh = names(what)
        fail(
            f"{what_en} should have shape {_fmt(want)}, but yours is a single number (shape ()): "
            f"without dim=..., the reduction runs over the whole tensor. Pass dim={dim}.",
            f"{what_zh} 的形状应为 {_fmt(want)}，但你的结果只是一个数（形状为 ()）：不指定 dim 时，"
            f"归约会作用于整个张量。请传入 dim={dim}。",
            evidence=["wrong_shape", "reduced_all_dims"],
        )
    if expected is not None:
        assert_shape_of(got, expected, what)
    assert_shape(got, want, what)


def _dropped_size_one(got, want, what, expected, squeezes):
    """A 0-d answer where (1,) was due."""
    if expected is None or got.device.type == "meta":
        return
    if not torch.allclose(
        got.detach().cpu().double().reshape(-1), expected.detach().cpu().double().reshape(-1)
    ):
        return
    what_en, what_zh = names(what)
    if squeezes:
        lines = ", ".join(map(str, squeezes))
        fail(
            f"{what_en} should have shape {_fmt(want)}, but yours is a single number (shape ()): "
            f"it holds the expected value with its size-1 dimension dropped. The .squeeze() "
            f"with no dim (line {lines}) removes every dimension of size 1: the one keepdim "
            "kept and, for an x with one column, the answer's own. Name the dim: squeeze(0), "
            "or leave out keepdim=True and the squeeze.",
            f"{what_zh} 的形状应为 {_fmt(want)}，但你的结果只是一个数（形状为 ()）：它的值是对的，"
            f"只是丢掉了长度为 1 的维度。不带 dim 的 .squeeze()（第 {lines} 行）会删除所有长度为 1 "
            "的维度：既删掉 keepdim 保留的那一维，也在 x 只有一列时删掉答案本身的那一维。请指明维度："
            "squeeze(0)，或者去掉 keepdim=True 和 squeeze。",
            evidence=["wrong_shape", "size_one_dims", "squeezed_too_much"],
        )
    fail(
        f"{what_en} should have shape {_fmt(want)}, but yours is a single number (shape ()): it "
        "holds the expected value with its size-1 dimension dropped.",
        f"{what_zh} 的形状应为 {_fmt(want)}，但你的结果只是一个数（形状为 ()）：它的值是对的，"
        "只是丢掉了长度为 1 的维度。",
        evidence=["wrong_shape", "size_one_dims"],
    )


def _fmt(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


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


F64 = (" (float64)", "（float64）")
F32 = (" (float32)", "（float32）")
I64 = (" (int64)", "（int64）")
PLAIN = ("", "")


def _for_x(call, x, note=PLAIN):
    """The name of a call on x, in both languages."""
    return Text(
        f"{call} for x of shape {tuple(x.shape)}{note[0]}",
        f"x 的形状为 {tuple(x.shape)}{note[1]}时的 {call}",
    )


# ---------------------------------------------------------------------------------------------
# column_means


def _offset_columns(rng, n, d, dtype=torch.float32):
    """Columns around different means, so that averaging the wrong way shows."""
    return torch.randn(n, d, generator=rng, dtype=dtype) + 5 * torch.randn(
        d, generator=rng, dtype=dtype
    )


COLUMN_SHAPES = [(3, 3), (4, 3), (2, 5), (1, 5), (6, 1)]


def test_column_means_values(learner, reference, device, rng, learner_source):
    squeezes = bare_calls(learner_source, ["column_means"], "squeeze")
    keeps = keeps_dims(learner_source, ["column_means"])
    cases = [(_offset_columns(rng, n, d).to(device), PLAIN) for n, d in COLUMN_SHAPES]
    cases += [(x, note) for note, x in _layouts(5, 4, rng, device)]
    cases.append((_offset_columns(rng, 4, 3, torch.float64).to(device), F64))
    for x, note in cases:
        what = _for_x("column_means(x)", x, note)
        want = reference.column_means(x)
        got = expect_tensor(learner.column_means(x), what)
        _check_reduced_shape(got, x, 0, what, want, squeezes, keeps)
        scale = float(x.abs().max())
        # At the precision of the coarser of x's and the result's dtype: whether the dtype is
        # kept is test_keeps_dtype's.
        both_float64 = x.dtype == got.dtype == torch.float64
        rtol, atol = (1e-9, 1e-9 * (1 + scale)) if both_float64 else (1e-5, 1e-5 * (1 + scale))
        mine = got.detach().cpu().to(want.dtype)
        if (
            x.shape[0] == x.shape[1]
            and not torch.allclose(mine, want.cpu(), rtol=rtol, atol=atol)
            and torch.allclose(mine, x.cpu().mean(dim=1), rtol=rtol, atol=atol)
        ):
            what_en, what_zh = names(what)
            fail(
                f"{what_en}: your values are the row means (dim=1); the shape is right only because x "
                "is square. One mean per column averages down the rows: dim=0.",
                f"{what_zh}：你的结果是每一行的均值（dim=1）；形状正确只是因为 x 恰好是方阵。"
                "每列一个均值，要沿行方向求平均：dim=0。",
                evidence=["values_differ", "reduced_wrong_dim"],
            )
        _floor_divided(mine, want.cpu(), x, what, rtol, atol)
        # Values only: the dtype and the device have their own tests.
        assert_close(got, want, what, rtol=rtol, atol=atol, check_dtype=False, check_device=False)


def _floor_divided(mine, want, x, what, rtol, atol):
    """Name x.sum(dim=0) // n: Python's // on tensors is floor division, which rounds each
    mean down to a whole number (even for float tensors)."""
    if x.device.type == "meta" or not x.numel() or mine.shape != want.shape:
        return
    floored = torch.div(x.detach().cpu().sum(dim=0), x.shape[0], rounding_mode="floor")
    if torch.allclose(mine, want, rtol=rtol, atol=atol) or not torch.allclose(
        mine, floored.to(mine.dtype), rtol=rtol, atol=atol
    ):
        return
    what_en, what_zh = names(what)
    fail(
        f"{what_en}: every value is a whole number, the mean rounded down: // is floor division, "
        "on tensors as on Python numbers (float tensors too). Divide with /: "
        "x.sum(dim=0) / x.shape[0], or x.mean(dim=0).",
        f"{what_zh}：每个值都是整数，是向下取整后的均值：// 是向下取整的除法，对张量和 Python 数一样"
        "（浮点张量也是如此）。请用 / 除：x.sum(dim=0) / x.shape[0]，或者 x.mean(dim=0)。",
        evidence=["values_differ", "floor_division"],
    )


# ---------------------------------------------------------------------------------------------
# row_max


def _row_max_as_tuple(module, x):
    """Run in the learner's process: a namedtuple comes back as a plain tuple."""
    out = module.row_max(x)
    return tuple(out) if isinstance(out, tuple) else out


def _row_max(learner, x, what):
    """The learner's (values, indices); a namedtuple such as x.max(dim=1)'s is fine."""
    got = learner.row_max(x)
    if isinstance(got, Opaque):  # tuple subclasses cross the boundary only by value
        got = learner.run(_row_max_as_tuple, x)
    return _as_pair(got, x, what)


def _as_pair(got, x, what):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        what_en, what_zh = names(what)
        fail(
            f"{what_en} should return two tensors, (values, indices), but yours returned "
            f"{describe(got)}. x.max(dim=1) gives both; x.amax(dim=1) or .values alone give only "
            "the values.",
            f"{what_zh} 应返回两个张量 (values, indices)，但你的函数返回了 {describe_zh(got)}。"
            "x.max(dim=1) 会同时给出两者；x.amax(dim=1) 或只取 .values 只有最大值。",
            evidence=["wrong_type", "not_a_pair"],
        )
    what_en, what_zh = names(what)
    values = expect_tensor(
        got[0], Text(f"the values returned by {what_en}", f"{what_zh} 返回的最大值")
    )
    indices = expect_tensor(
        got[1], Text(f"the indices returned by {what_en}", f"{what_zh} 返回的下标")
    )
    if x.dtype.is_floating_point and values.dtype == torch.int64 and indices.dtype == x.dtype:
        what_en, what_zh = names(what)
        fail(
            f"{what_en} returned (indices, values); the order asked for is (values, indices), as "
            "x.max(dim=1) gives them.",
            f"{what_zh} 返回的是 (indices, values)；要求的顺序是 (values, indices)，与 x.max(dim=1) 的返回顺序一致。",
            evidence=["wrong_type", "pair_swapped"],
        )
    return values, indices


def _check_row_max(values, indices, x, reference, what, *, index_dtype=True, learner=None):
    """Values (on the CPU, any dtype: the dtype test's), and indices pointing at a maximum;
    ``index_dtype``: the indices are int64 (judged by test_row_max_values only); ``learner``:
    asked again where only its answers on other rows can tell a mistake."""
    want_values, _ = reference.row_max(x)
    what_en, what_zh = names(what)
    v_what = Text(f"the values returned by {what_en}", f"{what_zh} 返回的最大值")
    i_what = Text(f"the indices returned by {what_en}", f"{what_zh} 返回的下标")
    _check_reduced_shape(values, x, 1, v_what, want_values)
    _every_maximum_listed(indices, x, i_what, _indices_of(learner))
    _check_reduced_shape(indices, x, 1, i_what)
    if index_dtype and indices.dtype == torch.float32 and not indices.numel():
        # float32 only where there is nothing: the default dtype of torch.tensor([])
        i_en, i_zh = names(i_what)
        fail(
            f"{i_en} should have dtype int64, but yours has dtype float32: "
            "torch.tensor of an empty list has no numbers to infer the dtype from, and gets "
            "PyTorch's default, float32.",
            f"{i_zh}的 dtype 应为 int64，但你的结果是 float32：对空列表调用 "
            "torch.tensor 时没有数字可用来推断 dtype，于是得到 PyTorch 的默认 dtype float32。",
            evidence=["wrong_dtype", "empty_list_float32"],
        )
    if index_dtype:
        assert_dtype(indices, torch.int64, i_what)
    if values.device.type != "meta" and x.shape[0] == x.shape[1] and x.numel():
        mine = values.detach().cpu()
        if not torch.equal(mine, want_values.cpu()) and torch.equal(mine, x.cpu().amax(dim=0)):
            v_what_en, v_what_zh = names(v_what)
            fail(
                f"{v_what_en} are the column maxima (dim=0); the shape is right only because x is "
                "square. The largest value of each row is a reduction across the columns: dim=1.",
                f"{v_what_zh} 是每一列的最大值（dim=0）；形状正确只是因为 x 恰好是方阵。"
                "每一行的最大值要跨列归约：dim=1。",
                evidence=["values_differ", "reduced_wrong_dim"],
            )
    if values.device.type != "meta":
        assert_equal(values.detach().cpu(), want_values.cpu(), v_what, check_dtype=False)
    if indices.device.type == "meta" or not x.numel():
        return
    idx, xs = indices.detach().cpu(), x.detach().cpu()
    outside = (idx < 0) | (idx >= xs.shape[1])
    if bool(outside.any()):
        i = int(outside.nonzero()[0])
        i_what_en, i_what_zh = names(i_what)
        fail(
            f"{i_what_en}: row {i} got index {int(idx[i])}, but x has only {xs.shape[1]} columns.",
            f"{i_what_zh}：第 {i} 行的下标为 {int(idx[i])}，但 x 只有 {xs.shape[1]} 列。",
            evidence=["values_differ", "index_not_at_max"],
        )
    picked = xs.gather(1, idx[:, None].long()).squeeze(1)
    wrong = picked != want_values.cpu()
    if bool(wrong.any()):
        i = int(wrong.nonzero()[0])
        i_what_en, i_what_zh = names(i_what)
        fail(
            f"{i_what_en}: row {i} got index {int(idx[i])}, where x holds {picked[i].item():.6g}, but "
            f"the row's maximum is {want_values[i].item():.6g}. Each index must point at a "
            "maximal element of its row.",
            f"{i_what_zh}：第 {i} 行的下标为 {int(idx[i])}，该位置的值是 {picked[i].item():.6g}，"
            f"但这一行的最大值是 {want_values[i].item():.6g}。每个下标都必须指向该行的一个最大元素。",
            evidence=["values_differ", "index_not_at_max"],
        )


def _indices_of(learner):
    """The learner's row_max indices of another x, or None where it gives none (it raised, or
    did not return a pair of tensors)."""
    if learner is None:
        return None

    def indices_of(x):
        try:
            return _row_max(learner, x, "row_max(x)")[1]
        except (LearnerFault, CheckFailed):  # no answer: no evidence either
            return None

    return indices_of


def _row_independent_probe(dtype, device):
    """Two xs that differ in row 0 alone: in the second, row 0's maximum appears twice. Every
    answer computed row by row gives the same indices for rows 1.. of both; the first n
    positions of (x == values[:, None]).nonzero() shift by one there."""
    rows = [[0, 0, 5, 0], [0, 5, 0, 0], [0, 0, 0, 5], [5, 0, 0, 0]]
    single = torch.tensor(rows, dtype=dtype, device=device)
    tied = single.clone()
    tied[0, 0] = 5
    return single, tied


def _first_n_listed(x):
    xs = x.detach().cpu()
    return (xs == xs.amax(dim=1, keepdim=True)).nonzero()[:, 1][: x.shape[0]]


def _cut_listing_shown(indices_of, dtype, device):
    """True where the learner's indices of the probe are the first n positions of every maximum
    in both xs, rows 1.. moving where only row 0 changed: evidence no row-by-row answer gives."""
    if indices_of is None:
        return False
    answers = []
    for probe in _row_independent_probe(dtype, device):
        got = indices_of(probe)
        if (
            not isinstance(got, torch.Tensor)
            or got.device.type == "meta"
            or got.dim() != 1
            or got.dtype.is_floating_point
            or got.dtype == torch.bool
        ):
            return False
        got = got.detach().cpu().long()
        if not torch.equal(got, _first_n_listed(probe)):
            return False
        answers.append(got)
    return not torch.equal(answers[0][1:], answers[1][1:])


def _every_maximum_listed(indices, x, what, indices_of=None):
    """Name indices read off the positions of every maximal element,
    (x == values[:, None]).nonzero()[:, 1]: one index per maximal element, so a row whose
    maximum appears twice gives two, and the result has more than n of them; cut to the first
    n, the indices after a tie belong to other rows. Only where the indices are those
    positions, and they are not a right answer: all of them (a length no other answer has), or
    the first n where ``indices_of`` (the learner's indices of another x) shows its rows'
    indices moving with a tie in another row. The first n alone can equal an answer computed
    row by row (argmin of [[2, 2], [1, 0]] is [0, 1], as is the cut listing)."""
    if indices.device.type == "meta" or x.device.type == "meta" or not x.numel():
        return
    if indices.dim() != 1 or indices.dtype.is_floating_point or indices.dtype == torch.bool:
        return
    xs, idx, n = x.detach().cpu(), indices.detach().cpu().long(), x.shape[0]
    maxima = xs == xs.amax(dim=1, keepdim=True)
    if int(maxima.sum()) == n:
        return  # no ties: these positions are the right indices
    listed = maxima.nonzero()[:, 1]
    we, wz = names(what)
    if torch.equal(idx, listed):
        lead_en, lead_zh = (
            f"{we} should be one index per row, shape ({n},), but ",
            f"{wz}应当每行一个下标，形状为 ({n},)，但",
        )
        told_en = (
            f"yours has {len(idx)} indices for {n} rows: one for every position where a row's "
            "maximum appears, as (x == values[:, None]).nonzero() lists them, so a row whose "
            "maximum appears more than once gives more than one"
        )
        told_zh = (
            f"你的结果对 {n} 行给出了 {len(idx)} 个下标：每个出现行最大值的位置都有一个，"
            "就像 (x == values[:, None]).nonzero() 列出的那样，所以最大值出现不止一次的行会给出不止一个下标"
        )
    elif (
        len(idx) == n
        and torch.equal(idx, listed[:n])
        and not bool(maxima.gather(1, idx[:, None].clamp(0, xs.shape[1] - 1)).all())
        and _cut_listing_shown(indices_of, x.dtype, x.device)
    ):
        lead_en, lead_zh = f"{we}: ", f"{wz}："
        told_en = (
            "yours are the first n positions that (x == values[:, None]).nonzero() lists: after a "
            "row whose maximum appears more than once, the indices belong to other rows"
        )
        told_zh = (
            "你的结果是 (x == values[:, None]).nonzero() 列出的前 n 个位置：在某一行的最大值出现"
            "不止一次之后，后面的下标就属于别的行了"
        )
    else:
        return
    fail(
        f"{lead_en}{told_en}. x.max(dim=1) gives one index per row, picking one of the maximal "
        "positions: values, indices = x.max(dim=1), or x.argmax(dim=1).",
        f"{lead_zh}{told_zh}。x.max(dim=1) 每行只给出一个下标，"
        "从最大值的位置中选一个：values, indices = x.max(dim=1)，或 x.argmax(dim=1)。",
        evidence=["values_differ", "nonzero_every_maximum"],
    )


ROW_SHAPES = [(3, 3), (4, 5), (5, 2), (1, 6), (6, 1), (0, 4)]


def test_row_max_values(learner, reference, device, rng):
    cases = [(torch.randn(n, d, generator=rng).to(device), PLAIN) for n, d in ROW_SHAPES]
    cases += [(x, note) for note, x in _layouts(5, 4, rng, device)]
    cases.append((torch.randn(4, 3, generator=rng, dtype=torch.float64).to(device), F64))
    cases.append((torch.randint(-50, 50, (5, 7), generator=rng).to(device), I64))
    for x, note in cases:
        what = _for_x("row_max(x)", x, note)
        values, indices = _row_max(learner, x, what)
        _check_row_max(values, indices, x, reference, what, learner=learner)


def test_row_max_ties(learner, reference, device, rng):
    x = torch.randint(0, 3, (6, 5), generator=rng).float()
    x[0] = 2.0  # one value all along the row
    x[1] = torch.tensor([3.0, 0.0, 1.0, 0.0, 3.0])  # the maximum at both ends
    labels = torch.randint(0, 2, (4, 6), generator=rng)  # int64 with many ties
    for matrix, note in ((x, "float32"), (labels, "int64")):
        x = matrix.to(device)
        what = Text(
            f"row_max(x) for a {note} x of shape {tuple(x.shape)} whose rows repeat their maximum",
            f"x 为形状 {tuple(x.shape)} 的 {note} 张量、各行的最大值重复出现时的 row_max(x)",
        )
        values, indices = _row_max(learner, x, what)
        # The indices' dtype is test_row_max_values's.
        _check_row_max(values, indices, x, reference, what, index_dtype=False, learner=learner)


# ---------------------------------------------------------------------------------------------
# softmax_rows


def _naive(x):
    e = x.exp()
    return e / e.sum(dim=1, keepdim=True)


def _shifted(x, m):
    e = (x - m).exp()
    return e / e.sum(dim=1, keepdim=True)


def _whole_sum(x, m):
    """exp(x - m) divided by the sum of the whole tensor (e.sum() without dim): with one row
    it is the softmax itself, and with one column the softmax of each column (dim=0), so it
    names nothing then."""
    if x.shape[0] < 2 or x.shape[1] < 2:
        return None
    e = (x - m).exp()
    return e / e.sum()


_WHOLE_SUM_EN = (
    "you divided by the sum of the whole tensor (e.sum() without dim), not by each row's: all "
    "your values together sum to 1, each row does not. Sum each row: e.sum(dim=1, keepdim=True)."
)
_WHOLE_SUM_ZH = (
    "你除以的是整个张量的和（不带 dim 的 e.sum()），而不是每一行各自的和：你的所有值加起来为 1，"
    "每一行却不是。请按行求和：e.sum(dim=1, keepdim=True)。"
)

_SOFTMAX_MISTAKES = (
    (
        lambda x: _naive(x),
        ["values_differ", "nan_in_output", "exp_overflow"],
        "exp() overflows: exp(89) is already inf in float32, and inf / inf is NaN. Subtract each "
        "row's maximum before exp() (x - x.max(dim=1, keepdim=True).values): the softmax does not "
        "change, and every exponent is at most 0.",
        "exp() 溢出了：在 float32 中 exp(89) 就已经是 inf，而 inf / inf 是 NaN。请在 exp() 之前"
        "减去每一行的最大值（x - x.max(dim=1, keepdim=True).values）：softmax 的结果不变，"
        "而每个指数都不超过 0。",
    ),
    (
        lambda x: _shifted(x, x.min(dim=1, keepdim=True).values),
        ["values_differ", "nan_in_output", "exp_overflow"],
        "you subtracted each row's minimum, not its maximum: x - min is at least 0 and as large as "
        "the row's spread (2000 for a row holding 1000 and -1000), so exp() still overflows to "
        "inf, and inf / inf is NaN. Subtract the maximum: x - x.max(dim=1, keepdim=True).values "
        "makes every exponent at most 0.",
        "你减去的是每一行的最小值，而不是最大值：x - min 不小于 0，最大可达该行的极差（同时含有 1000 和 "
        "-1000 的行为 2000），所以 exp() 仍会溢出为 inf，而 inf / inf 是 NaN。请减去最大值："
        "x - x.max(dim=1, keepdim=True).values 让每个指数都不超过 0。",
    ),
    (
        lambda x: _shifted(x, x.max()),
        ["values_differ", "nan_in_output", "reduced_all_dims"],
        "you subtracted the maximum of the whole tensor, not each row's: a row far below it "
        "underflows to exp() = 0 everywhere, and 0 / 0 is NaN. Use each row's own maximum: "
        "x.max(dim=1, keepdim=True).values.",
        "你减去的是整个张量的最大值，而不是每一行各自的最大值：远低于它的那一行 exp() 全部下溢为 0，"
        "而 0 / 0 是 NaN。请使用每一行自己的最大值：x.max(dim=1, keepdim=True).values。",
    ),
    (
        lambda x: _shifted(x, x.max(dim=0, keepdim=True).values),
        ["values_differ", "reduced_wrong_dim"],
        "you subtracted each column's maximum (dim=0), not each row's: a softmax stays the same "
        "only when one number is taken from a whole row, so your rows changed (and a row far "
        "below its columns' maxima underflows to exp() = 0 everywhere, and 0 / 0 is NaN). "
        "Subtract each row's own maximum: x.max(dim=1, keepdim=True).values.",
        "你减去的是每一列的最大值（dim=0），而不是每一行的：只有整行减去同一个数时 softmax 才不变，"
        "所以你的各行结果变了（而远低于各列最大值的那一行 exp() 会全部下溢为 0，0 / 0 是 NaN）。"
        "请减去每一行自己的最大值：x.max(dim=1, keepdim=True).values。",
    ),
    (
        lambda x: _shifted(x.t(), x.t().max(dim=1, keepdim=True).values).t(),
        ["values_differ", "reduced_wrong_dim"],
        "your result normalises each column (dim=0): its columns sum to 1, not its rows. Reduce "
        "across the columns, dim=1, for the maximum and the sum.",
        "你的结果对每一列做了归一化（dim=0）：是各列之和为 1，而不是各行。求最大值和求和都应跨列进行，"
        "即 dim=1。",
    ),
    (
        lambda x: _whole_sum(x, x.max(dim=1, keepdim=True).values),
        ["values_differ", "reduced_all_dims"],
        _WHOLE_SUM_EN,
        _WHOLE_SUM_ZH,
    ),
    (
        lambda x: _whole_sum(x, x.max()),
        ["values_differ", "reduced_all_dims"],
        _WHOLE_SUM_EN,
        _WHOLE_SUM_ZH,
    ),
    (
        lambda x: _shifted(x, x.max(dim=1).values) if x.shape[0] == x.shape[1] else None,
        ["values_differ", "keepdim_dropped"],
        "you subtracted x.max(dim=1).values, of shape (n,), from x (n, d): broadcasting lines it "
        "up with the columns, so row i lost the maximum of row j in column j (the shape only "
        "fits because x is square). Keep the reduced dim: x.max(dim=1, keepdim=True).values is "
        "(n, 1).",
        "你用形状为 (n,) 的 x.max(dim=1).values 去减 (n, d) 的 x：广播把它沿列排开，"
        "于是第 i 行第 j 列减去的是第 j 行的最大值（形状能对上只是因为 x 恰好是方阵）。"
        "请保留被归约的维度：x.max(dim=1, keepdim=True).values 的形状是 (n, 1)。",
    ),
    (
        lambda x: (
            (x - x.max(dim=1, keepdim=True).values).exp()
            / (x - x.max(dim=1, keepdim=True).values).exp().sum(dim=1)
            if x.shape[0] == x.shape[1]
            else None
        ),
        ["values_differ", "keepdim_dropped"],
        "you divided by the row sums of shape (n,): broadcasting lines them up with the columns, "
        "so column j was divided by the sum of row j (the shape only fits because x is square). "
        "Keep the reduced dim: e.sum(dim=1, keepdim=True) is (n, 1).",
        "你除以的是形状为 (n,) 的各行之和：广播把它沿列排开，于是第 j 列除以的是第 j 行的和"
        "（形状能对上只是因为 x 恰好是方阵）。请保留被归约的维度：e.sum(dim=1, keepdim=True) 的形状是 (n, 1)。",
    ),
    (
        lambda x: (
            (x - x.max(dim=1).values).exp() / (x - x.max(dim=1).values).exp().sum(dim=1)
            if x.shape[0] == x.shape[1]
            else None
        ),
        ["values_differ", "keepdim_dropped"],
        "you reduced over dim=1 twice without keepdim, for the maximum and for the sum: each is of "
        "shape (n,), and broadcasting lines it up with the columns, so row i used row j's maximum "
        "and sum in column j (the shape only fits because x is square). Keep the reduced dim: "
        "keepdim=True gives (n, 1).",
        "你两次在 dim=1 上归约（求最大值和求和）都没有 keepdim：结果的形状都是 (n,)，广播把它们沿列排开，"
        "于是第 i 行第 j 列用的是第 j 行的最大值和和（形状能对上只是因为 x 恰好是方阵）。"
        "请保留被归约的维度：keepdim=True 得到 (n, 1)。",
    ),
    (
        lambda x: (x - torch.logsumexp(x, dim=1)).exp() if x.shape[0] == x.shape[1] else None,
        ["values_differ", "keepdim_dropped"],
        "you subtracted torch.logsumexp(x, dim=1), of shape (n,), from x (n, d): broadcasting "
        "lines it up with the columns, so row i lost row j's log-sum-exp in column j (the shape "
        "only fits because x is square). Keep the reduced dim: torch.logsumexp(x, dim=1, "
        "keepdim=True) is (n, 1).",
        "你用形状为 (n,) 的 torch.logsumexp(x, dim=1) 去减 (n, d) 的 x：广播把它沿列排开，"
        "于是第 i 行第 j 列减去的是第 j 行的 log-sum-exp（形状能对上只是因为 x 恰好是方阵）。"
        "请保留被归约的维度：torch.logsumexp(x, dim=1, keepdim=True) 的形状是 (n, 1)。",
    ),
    (
        lambda x: x - torch.logsumexp(x, dim=1, keepdim=True),
        ["values_differ", "log_softmax_returned"],
        "your values are the logarithm of the softmax, x - logsumexp(x): all of them are at most "
        "0, and it is their exp() that sums to 1 in each row. Take the exp of it: "
        "torch.exp(x - torch.logsumexp(x, dim=1, keepdim=True)).",
        "你的结果是 softmax 的对数，即 x - logsumexp(x)：所有值都不大于 0，每一行是它们的 exp() 之和为 1。"
        "请再取 exp：torch.exp(x - torch.logsumexp(x, dim=1, keepdim=True))。",
    ),
)


def _check_finite_softmax(mine, what, x):
    """Fail on a NaN or inf in ``mine`` (the softmax of ``x``). The overflow of a plain
    exp(x) / sum is named only where ``mine`` is that softmax: NaN and inf come from other
    slips too (exp(x - logsumexp(x, dim=1)) without keepdim overflows as well), and telling
    that learner to subtract the row's maximum sent them from a right approach to another."""
    bad = ~torch.isfinite(mine)
    if bool(bad.any()):
        i, j = (int(v) for v in bad.nonzero()[0])
        what_en, what_zh = names(what)
        kind = "nan_in_output" if bool(mine[i, j].isnan()) else "inf_in_output"
        with torch.no_grad():
            naive = _naive(x.detach().cpu().to(mine.dtype))
        if naive.shape == mine.shape and torch.equal(naive.isfinite(), mine.isfinite()):
            fail(
                f"{what_en} holds {mine[i, j].item()} at [{i}, {j}]; a softmax is always finite. "
                "exp() of large values overflows to inf (exp(89) already does in float32), and "
                "inf / inf is NaN: subtract each row's maximum before exp().",
                f"{what_zh} 在 [{i}, {j}] 处为 {mine[i, j].item()}；softmax 的结果总是有限数。对大数取 "
                "exp() 会溢出为 inf（在 float32 中 exp(89) 就已经溢出），而 inf / inf 是 NaN："
                "请在 exp() 之前减去每一行的最大值。",
                evidence=["values_differ", kind, "exp_overflow"],
            )
        fail(
            f"{what_en} holds {mine[i, j].item()} at [{i}, {j}]; a softmax is always finite.",
            f"{what_zh} 在 [{i}, {j}] 处为 {mine[i, j].item()}；softmax 的结果总是有限数。",
            evidence=["values_differ", kind],
        )


def _softmax_tol(dtype):
    # exp(x - logsumexp(x)) is a valid formula whose float32 error grows with |x|: 1000.0 has
    # a rounding step of 6e-5, so allow a relative 1e-4.
    return (1e-4, 1e-6) if dtype == torch.float32 else (1e-9, 1e-12)


def _softmax_story(mine, xs, rtol, atol):
    """(evidence, en, zh) of the one mistake of _SOFTMAX_MISTAKES whose answer ``mine`` is
    (``sole_story``), or None."""
    with torch.no_grad():
        return sole_story(
            (evidence, en, zh)
            for mistake, evidence, en, zh in _SOFTMAX_MISTAKES
            if (wrong := mistake(xs)) is not None
            and torch.allclose(mine, wrong, rtol=rtol, atol=atol, equal_nan=True)
        )


def _max_indices_in(source, name="softmax_rows"):
    """Whether the learner's ``name`` reads the indices of a max: x.max(...)[1], .indices of a
    max, or argmax. Subtracting those (positions, not values) shifts each row by a constant, so
    the softmax is right until exp() overflows."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return False
    functions = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
    ]

    def is_max(node):
        return (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("max", "amax")
        )

    for function in functions:
        for node in ast.walk(function):
            if (
                isinstance(node, ast.Subscript)
                and is_max(node.value)
                and isinstance(node.slice, ast.Constant)
                and node.slice.value == 1
            ):
                return True
            if isinstance(node, ast.Attribute) and node.attr == "indices" and is_max(node.value):
                return True
            if isinstance(node, ast.Attribute) and node.attr == "argmax":
                return True
    return False


_INDICES_EN = (
    "exp() overflows: exp(89) is already inf in float32, and inf / inf is NaN. Your code does "
    "subtract something from each row, but what x.max(dim=1, keepdim=True)[1] (or .indices, or "
    "argmax) gives is the position of the maximum, not its value: the rows shift by a small whole "
    "number and stay as large as they were. Subtract the values: "
    "x.max(dim=1, keepdim=True).values (or [0])."
)
_INDICES_ZH = (
    "exp() 溢出了：在 float32 中 exp(89) 就已经是 inf，而 inf / inf 是 NaN。你的代码确实从每一行减去了"
    "某个数，但 x.max(dim=1, keepdim=True)[1]（或 .indices、argmax）给出的是最大值所在的位置，而不是"
    "最大值本身：各行只平移了一个小整数，仍然和原来一样大。请减去最大值本身："
    "x.max(dim=1, keepdim=True).values（或 [0]）。"
)


def _epsilon_in_sum(mine, x, what):
    """Name e / (e.sum(dim=1, keepdim=True) + eps): a small constant added to a sum that is at
    least 1 (the maximum's own term is exp(0)), so there is no zero to guard, and the result
    is off by eps / (sum + eps) everywhere, beyond float64's tolerance."""
    if x.dim() != 2 or not x.numel() or not mine.dtype.is_floating_point:
        return
    x = x.double()
    e = (x - x.max(dim=1, keepdim=True).values).exp()
    total = e.sum(dim=1, keepdim=True)
    yours = mine.double()
    usable = (yours > 1e-6) & torch.isfinite(yours)
    if not bool(usable.all(dim=1).all()):
        return
    implied = e / yours - total  # the eps each value implies
    eps = float(implied.mean())
    # An answer computed in float32 (every value a float32 number) is rounded by up to 6e-8 of
    # each value, and two or three values can imply the same eps by that alone: below a
    # hundred times float32's rounding of the largest sum, an eps is no evidence.
    rounded = bool(torch.equal(yours, yours.float().double()))
    floor = 100 * 2.0**-24 * float(total.max()) if rounded else 1e-15
    if not floor < eps < 1e-2:
        return
    if not bool(torch.allclose(implied, torch.full_like(implied, eps), rtol=1e-2, atol=0)):
        return
    what_en, what_zh = names(what)
    fail(
        f"{what_en}: your values are e / (e.sum(dim=1, keepdim=True) + {eps:.0e}): a small "
        "constant added to the sum. After the maximum is subtracted, each row's sum is at least "
        "1 (the maximum's own term is exp(0) = 1), so there is no zero to guard against, and the "
        "constant only makes every value slightly wrong. Divide by the sum itself.",
        f"{what_zh}：你的结果是 e / (e.sum(dim=1, keepdim=True) + {eps:.0e})：在和上加了一个小常数。"
        "减去最大值之后，每一行的和至少为 1（最大值自己那一项是 exp(0) = 1），不存在需要防范的 0，"
        "这个常数只会让每个值都略有偏差。请直接除以和本身。",
        evidence=["values_differ", "epsilon_in_denominator"],
    )


def _check_softmax(got, x, want, what, *, indices_used=False):
    got = expect_tensor(got, what)
    assert_shape(got, want.shape, what)
    # At the precision of the coarser dtype: whether the dtype is kept is test_keeps_dtype's.
    rtol, atol = _softmax_tol(want.dtype if got.dtype == want.dtype else torch.float32)
    if got.device.type != "meta" and x.numel():
        mine, expected, xs = got.detach().cpu().to(want.dtype), want.cpu(), x.detach().cpu()
        if not torch.allclose(mine, expected, rtol=rtol, atol=atol):
            story = _softmax_story(mine, xs, rtol, atol)
            if story is not None:
                evidence, en, zh = story
                what_en, what_zh = names(what)
                if indices_used and "exp_overflow" in evidence:
                    en, zh = _INDICES_EN, _INDICES_ZH
                    evidence = [*evidence, "max_indices_subtracted"]
                fail(f"{what_en}: {en}", f"{what_zh}：{zh}", evidence=evidence)
            _check_finite_softmax(mine, what, xs)
            _epsilon_in_sum(mine, xs, what)
    # Values only: the dtype and the device have their own tests.
    assert_close(got, want, what, rtol=rtol, atol=atol, check_dtype=False, check_device=False)


SOFTMAX_SHAPES = [(3, 3), (4, 5), (5, 2), (1, 6), (6, 1), (0, 5)]


def test_softmax_rows_values(learner, reference, device, rng):
    cases = [(2 * torch.randn(n, d, generator=rng).to(device), PLAIN) for n, d in SOFTMAX_SHAPES]
    cases += [(x, note) for note, x in _layouts(5, 4, rng, device)]
    cases.append((torch.randn(4, 3, generator=rng, dtype=torch.float64).to(device), F64))
    for x, note in cases:
        what = _for_x("softmax_rows(x)", x, note)
        _check_softmax(learner.softmax_rows(x), x, reference.softmax_rows(x), what)


def test_softmax_rows_large_values(learner, reference, device, learner_source):
    indices_used = _max_indices_in(learner_source)
    cases = [
        (
            torch.tensor(
                [[1000.0, 1001.0, 999.0], [1000.0, 1000.0, 1000.0], [-1000.0, -1000.0, -999.0]]
            ),
            (", rows holding values near 1000 and -1000", "、各行含有 1000 和 -1000 附近的数值"),
        ),
        (
            torch.tensor([[1000.0, 1001.0, 999.0, 1000.5], [-1000.0, -999.0, -1001.0, -999.5]]),
            (", one row near 1000 and one near -1000", "、一行在 1000 附近、一行在 -1000 附近"),
        ),
        (
            torch.tensor([[1000.0, 0.0, -1000.0], [88.0, 89.0, 90.0]]),
            (", rows of very different values", "、各行数值相差悬殊"),
        ),
        (
            torch.tensor([[1000.0, 1001.0], [2.0, 3.0]], dtype=torch.float64),
            (", float64 rows near 1000", "、float64 的行在 1000 附近"),
        ),
    ]
    for x, note in cases:
        x = x.to(device)
        what = _for_x("softmax_rows(x)", x, note)
        _check_softmax(
            learner.softmax_rows(x),
            x,
            reference.softmax_rows(x),
            what,
            indices_used=indices_used,
        )


@settings(parent=PROPERTY, max_examples=15)
@given(
    n=st.integers(1, 4),
    d=st.integers(1, 5),
    shift=st.integers(-1000, 1000),
    data_seed=st.integers(0, 2**16),
)
def test_softmax_rows_property(learner, n, d, shift, data_seed):
    # Values in steps of 1/8 and a whole-number shift: x + shift is exact in float32, so the
    # shifted rows must give the same softmax.
    x = torch.randint(-40, 40, (n, d), generator=torch.Generator().manual_seed(data_seed)) / 8.0
    what = Text(
        f"softmax_rows(x + {shift}) for x of shape ({n}, {d})",
        f"x 的形状为 ({n}, {d}) 时的 softmax_rows(x + {shift})",
    )
    got = expect_tensor(learner.softmax_rows(x + shift), what)
    assert_shape(got, (n, d), what)
    got = got.detach().cpu().float()
    _check_finite_softmax(got, what, x + shift)
    # exp(x - logsumexp(x)) is exact only up to the rounding step of x itself (6e-5 at 1000).
    tol = 1e-5 + 2e-7 * abs(shift)
    sums = got.sum(dim=1)
    if not torch.allclose(sums, torch.ones_like(sums), atol=tol) or bool((got < 0).any()):
        i = int((sums - 1).abs().argmax())
        what_en, what_zh = names(what)
        whole = n > 1 and d > 1 and bool((got >= 0).all()) and abs(float(sums.sum()) - 1) <= tol
        fail(
            f"{what_en}: every row of a softmax holds values between 0 and 1 that sum to 1, but row "
            f"{i} of yours sums to {sums[i].item():.6g}."
            + (f" Y{_WHOLE_SUM_EN[1:]}" if whole else ""),
            f"{what_zh}：softmax 的每一行都是 0 到 1 之间、总和为 1 的值，但你的结果第 {i} 行之和为 "
            f"{sums[i].item():.6g}。" + (_WHOLE_SUM_ZH if whole else ""),
            evidence=["values_differ"] + (["reduced_all_dims"] if whole else []),
        )
    base = expect_tensor(learner.softmax_rows(x), _for_x("softmax_rows(x)", x))
    if not torch.allclose(got, base.detach().cpu().float(), rtol=tol, atol=1e-6):
        what_en, what_zh = names(what)
        fail(
            f"{what_en} should equal softmax_rows(x): adding the same number to a whole row does "
            "not change its softmax, but yours changes.",
            f"{what_zh} 应当等于 softmax_rows(x)：给一整行加上同一个数不会改变它的 softmax，"
            "但你的结果变了。",
            evidence=["values_differ"],
        )


def test_softmax_rows_forbidden(learner, exercise, learner_source, rng):
    learner.call("softmax_rows", torch.randn(4, 4, generator=rng), trace=True)
    assert_not_forbidden(exercise, "softmax_rows", learner_source, learner.last)


# ---------------------------------------------------------------------------------------------
# Devices


def test_results_on_input_device(learner, device, rng):
    # Only the device (meta tensors carry a device but no data: a tensor made on the CPU next to
    # them fails here exactly as it would next to CUDA inputs). The input is square, so a
    # per-row statistic lined up with the columns (the values tests') still runs.
    x = torch.randn(4, 4, generator=rng).to(device)
    for name in ("column_means", "row_max", "softmax_rows"):
        what = Text(
            f"{name}(x) for x of shape (4, 4) on {device}",
            f"x 的形状为 (4, 4)、位于 {device} 时的 {name}(x)",
        )
        got = on_meta(learner, name, (x,), what) if device == "meta" else getattr(learner, name)(x)
        if name == "row_max" and isinstance(got, Opaque):  # a namedtuple, by value
            got = learner.run(_row_max_as_tuple, x)
        # row_max returns a pair; a single tensor (the values alone) is test_row_max_values's.
        for t in got if isinstance(got, (tuple, list)) else (got,):
            assert_device(expect_tensor(t, what), device, what)


def test_keeps_dtype(learner, rng):
    # Only the dtype, for a float64 and a float32 x (square: a per-row statistic lined up with
    # the columns, the values tests', still runs): the values are the other tests'. Both: code
    # that computes in float64 whatever x is (x.mean(dim=0, dtype=torch.float64)) keeps
    # float64's dtype by chance, and the values tests compare values, not dtypes.
    for dtype, note in ((torch.float64, F64), (torch.float32, F32)):
        x = torch.randn(4, 4, generator=rng, dtype=dtype)
        for name in ("column_means", "row_max", "softmax_rows"):
            _keeps_dtype(learner, name, x, note)


def _keeps_dtype(learner, name, x, note):
    """fail() unless the values of ``name(x)`` have the dtype of x."""
    kind = str(x.dtype).removeprefix("torch.")
    what = _for_x(f"{name}(x)", x, note)
    got = getattr(learner, name)(x)
    pair = None
    if name == "row_max":
        if isinstance(got, Opaque):
            got = learner.run(_row_max_as_tuple, x)
        pair = got if isinstance(got, (tuple, list)) and len(got) == 2 else None
        got = got[0] if isinstance(got, (tuple, list)) and got else got  # the values
    got = expect_tensor(got, what)
    if (
        pair is not None
        and got.dtype == torch.int64
        and isinstance(pair[1], torch.Tensor)
        and pair[1].dtype == x.dtype
    ):
        # int64 "values" and x's dtype for "indices": the pair is swapped
        # (test_row_max_values judges the order); the values it returned kept their dtype
        got = pair[1]
    if got.dtype != x.dtype:
        we, wz = names(what)
        yours = str(got.dtype).removeprefix("torch.")
        fail(
            f"{we} should keep the dtype of x, {kind}, but yours has dtype {yours}.",
            f"{wz} 应当保持 x 的 dtype {kind}，但你的结果是 {yours}。",
            evidence=["wrong_dtype", "dtype_not_kept"],
        )
