"""Hidden tests of exercise-06: squeeze, unsqueeze, permute.

Pitfalls from the seeds (003 §2.2, with 001 §5.2 and 000 §2.3 on views):
- unsqueeze(dim) inserts the new size-1 dimension at position dim: a batch dimension goes first;
  unsqueeze_ (with the underscore) would reshape the caller's tensor in place;
- squeeze() with no argument removes every dimension of size 1 ("默认把所有长度为1的维度全删了"),
  so a single channel or a height of 1 disappears too; squeeze(dim) removes only dim, but silently
  does nothing when that dimension's size is not 1, so the ValueError must be raised by hand;
  negative dims count from the end, and shape arithmetic such as shape[dim + 1:] breaks for -1;
- permute reorders dimensions; reshape/view to the target shape only regroups the values in memory
  order (the channels get scrambled), and transpose(0, 2) gives (C, W, H), wrong when H != W and
  transposing every channel when H == W.
Results may be views of the input (unsqueeze, squeeze and permute return views): that is fine.
Inputs include non-contiguous views (a channels-last view, a crop); meta runs check shapes.
"""

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing import (
    LearnerRaised,
    assert_device,
    assert_equal,
    assert_not_returned_exception,
    assert_shape,
    expect_raises,
    expect_tensor,
    fail,
    names,
    on_meta,
    view_difference,
)
from grader.testing.properties import PROPERTY


def _on(device):
    return "" if device == "cpu" else f", device={device!r}"


def _randn_code(shape, device):
    return f"torch.randn({', '.join(map(str, shape))}{_on(device)})"


def _equal_here(got, want, what):
    """Shape, dtype and values (on meta: shape and dtype); where the result lives is
    test_results_on_input_device's."""
    got = expect_tensor(got, what)
    if got.dtype != want.dtype:
        we, wz = names(what)
        fail(
            f"{we} should keep the input's dtype, {str(want.dtype).removeprefix('torch.')}, but "
            f"yours has dtype {str(got.dtype).removeprefix('torch.')}. Moving dimensions never "
            "needs a conversion.",
            f"{wz} 应当保持输入的 dtype {str(want.dtype).removeprefix('torch.')}，但你的结果是 "
            f"{str(got.dtype).removeprefix('torch.')}。移动维度从来不需要转换类型。",
            evidence=["wrong_dtype", "dtype_not_kept"],
        )
    if got.device.type == "meta" or want.device.type == "meta":
        assert_shape(got, want.shape, what)
        return
    assert_equal(got.detach().cpu(), want.detach().cpu(), what)


def _drop(shape, index):
    return tuple(s for i, s in enumerate(shape) if i != index)


# ---------------------------------------------------------------------------------------------
# add_batch_dim


def _check_batch(learner, reference, img, code):
    what = f"add_batch_dim(img) (img = {code})"
    got = expect_tensor(learner.add_batch_dim(img), what)
    want = reference.add_batch_dim(img)
    shape = tuple(got.shape)
    if (
        shape != tuple(want.shape)
        and len(shape) == 4
        and any(shape[i] == 1 and _drop(shape, i) == tuple(img.shape) for i in range(1, 4))
    ):
        fail(
            f"{what} should have shape {tuple(want.shape)}, but yours has shape {shape}: the new "
            "dimension of size 1 is in the wrong place. unsqueeze(dim) inserts it at position dim, "
            "and the batch dimension comes first: unsqueeze(0).",
            f"{what} 的形状应为 {tuple(want.shape)}，但你的结果形状为 {shape}：新增的长度为 1 的维度"
            "位置不对。unsqueeze(dim) 会把它插入到第 dim 个位置，而批次维度应该在最前面：unsqueeze(0)。",
            evidence=["wrong_shape", "size_one_dims", "new_dim_misplaced"],
        )
    _equal_here(got, want, what)


def test_add_batch_dim(learner, reference, device, rng):
    d = _on(device)
    cases = [
        (f"torch.randn(3, 4, 5{d})", torch.randn(3, 4, 5, generator=rng).to(device)),
        (f"torch.randn(1, 4, 4{d})", torch.randn(1, 4, 4, generator=rng).to(device)),
        (f"torch.randn(3, 1, 5{d})", torch.randn(3, 1, 5, generator=rng).to(device)),
        (
            f"torch.randn(4, 5, 3{d}).permute(2, 0, 1)",
            torch.randn(4, 5, 3, generator=rng).to(device).permute(2, 0, 1),
        ),
        (
            f"torch.randn(3, 6, 8{d})[:, 1:-1, ::2]",
            torch.randn(3, 6, 8, generator=rng).to(device)[:, 1:-1, ::2],
        ),
        (
            f"torch.randint(0, 256, (3, 2, 2){d}, dtype=torch.uint8)",
            torch.randint(0, 256, (3, 2, 2), generator=rng, dtype=torch.uint8).to(device),
        ),
    ]
    for code, img in cases:
        _check_batch(learner, reference, img, code)


# ---------------------------------------------------------------------------------------------
# drop_dim


def _drop_negative(learner, x, dim):
    """learner.drop_dim(x, dim); an error for a negative dim whose position counted from the
    front works is named: the code turns negative dims into the wrong position (an IndexError
    from len(x.shape) - dim, or a shape error from x.shape[:dim] + x.shape[dim + 1:], whose
    second slice is the whole shape for dim = -1)."""
    try:
        return learner.drop_dim(x, dim)
    except LearnerRaised as exc:
        if dim >= 0:
            raise
        front = dim + x.dim()
        try:
            learner.drop_dim(x, front)
        except LearnerRaised:
            raise exc from None
        en, zh = exc.message.en.rstrip(), exc.message.zh.rstrip()
        exc.message = Text(
            f"{en}{'' if en.endswith('.') else '.'} drop_dim(x, {dim}) raised it, while "
            f"drop_dim(x, {front}), the same dimension counted from the front, works: your "
            "code turns a negative dim into the wrong position. A negative dim counts from the "
            f"end (-1 is the last dim), so its position is dim + x.dim() = {front}, not "
            "len(x.shape) - dim, and x.shape[dim + 1:] for dim = -1 is x.shape[0:], the whole "
            "shape; x.shape[dim] and x.squeeze(dim) take negative dims as they are.",
            f"{zh}{'' if zh.endswith('。') else '。'}drop_dim(x, {dim}) 抛出了它，而 "
            f"drop_dim(x, {front})（从前往后数的同一维）可以正常运行：你的代码把"
            "负的 dim 换算成了错误的位置。负的 dim 从末尾开始数（-1 是最后一维），所以它的位置是 "
            f"dim + x.dim() = {front}，而不是 len(x.shape) - dim；而且 dim = -1 时 x.shape[dim + 1:] "
            "就是 x.shape[0:]，即整个形状；x.shape[dim] 和 x.squeeze(dim) 本身就接受负的 dim。",
        )
        exc.evidence = (*exc.evidence, "negative_dim_position")
        raise


def _check_drop(learner, reference, x, dim, code):
    what = f"drop_dim(x, {dim}) (x = {code})"
    got = expect_tensor(_drop_negative(learner, x, dim), what)
    want = reference.drop_dim(x, dim)
    shape, wanted = tuple(got.shape), tuple(want.shape)
    if (
        shape != wanted
        and [s for s in shape if s != 1] == [s for s in wanted if s != 1]
        and len(shape) < len(wanted)
    ):
        fail(
            f"{what} should have shape {wanted}, but yours has shape {shape}: it removed other "
            "dimensions of size 1 too. x.squeeze() removes every dimension of size 1; name the one "
            "to remove: x.squeeze(dim).",
            f"{what} 的形状应为 {wanted}，但你的结果形状为 {shape}：它把其他长度为 1 的维度也删掉了。"
            "x.squeeze() 会删除所有长度为 1 的维度；请指明要删除的那一个：x.squeeze(dim)。",
            evidence=["wrong_shape", "size_one_dims", "squeezed_too_much"],
        )
    _other_dim_indexed(got, x, dim, wanted, what)
    _equal_here(got, want, what)


def _other_dim_indexed(got, x, dim, wanted, what):
    """Name a result that is the first slice of another dimension than dim (x[0], x[:, 0],
    x[..., 0] written out where dim was to choose): its shape and values are those of
    x.select(k, 0) for exactly one k other than dim. Not on meta, where no values tell it from
    another answer of that shape."""
    shape, n = tuple(got.shape), x.dim()
    if shape == wanted or n == 0 or got.device.type == "meta" or x.device.type == "meta":
        return
    own = dim % n
    fitting = [
        k
        for k in range(n)
        if k != own
        and _drop(tuple(x.shape), k) == shape
        and torch.equal(got.detach().cpu(), x.detach().cpu().select(k, 0))
    ]
    if len(fitting) != 1:
        return
    k = fitting[0]
    spelt = [{0: "x[0]", 1: "x[:, 0]"}.get(k, ""), "x[..., 0]" if k == n - 1 and k else ""]
    index = " or ".join(i for i in spelt if i) or f"x.select({k}, 0)"
    counted = f" (dim {dim} counts from the end: dimension {own})" if dim < 0 else ""
    counted_zh = f"（dim {dim} 从末尾数起：第 {own} 维）" if dim < 0 else ""
    fail(
        f"{what} should have shape {wanted}, but yours has shape {shape}: yours is {index}, the "
        f"first slice of dimension {k}, where dimension {dim} was asked{counted}. An index "
        "written out takes the same dimension whatever dim says (x[0] dimension 0, x[:, 0] "
        "dimension 1, x[..., 0] the last): x.squeeze(dim), after checking x.shape[dim] == 1, "
        "removes the dimension dim names.",
        f"{what} 的形状应为 {wanted}，但你的结果形状为 {shape}：你的结果是 {index}，即第 {k} 维的"
        f"第一个切片，而要求删除的是第 {dim} 维{counted_zh}。写死的索引不管 dim 是多少都取同一维"
        "（x[0] 是第 0 维，x[:, 0] 是第 1 维，x[..., 0] 是最后一维）：先检查 x.shape[dim] == 1，"
        "再用 x.squeeze(dim) 删除 dim 所指的那一维。",
        evidence=["wrong_shape", "other_dim_indexed"],
    )


def test_drop_dim_removes_only_that_dim(learner, reference, device, rng):
    d = _on(device)
    cases = [
        ((1, 3, 1, 4), 0),
        ((1, 3, 1, 4), 2),
        ((2, 1), 1),
        ((1, 1), 1),
        ((1,), 0),
    ]
    for shape, dim in cases:
        x = torch.randn(*shape, generator=rng).to(device)
        _check_drop(learner, reference, x, dim, _randn_code(shape, device))
    view = torch.randn(5, 1, 1, generator=rng).to(device).permute(1, 0, 2)
    _check_drop(learner, reference, view, 0, f"torch.randn(5, 1, 1{d}).permute(1, 0, 2)")
    labels = torch.randint(0, 9, (3, 1), generator=rng).to(device)
    _check_drop(learner, reference, labels, 1, f"torch.randint(0, 9, (3, 1){d})")


def test_drop_dim_negative(learner, reference, device, rng):
    # Only dimension dim has size 1 here: keeping the other size-1 dimensions is
    # test_drop_dim_removes_only_that_dim's.
    for shape, dim in (((4, 1), -1), ((2, 3, 1), -1), ((3, 1, 4), -2), ((1, 3, 4), -3)):
        x = torch.randn(*shape, generator=rng).to(device)
        _check_drop(learner, reference, x, dim, _randn_code(shape, device))


def _expect_value_error(learner, x, dim, code):
    what = f"drop_dim(x, {dim}) (x = {code})"
    size = x.shape[dim]
    with expect_raises("ValueError", what):
        got = learner.drop_dim(x, dim)
        # It returned: say what it did instead of raising.
        assert_not_returned_exception(got, "ValueError", what)
        if isinstance(got, torch.Tensor) and tuple(got.shape) == tuple(x.shape):
            fail(
                f"{what} should raise ValueError, because dimension {dim} has size {size}, not 1; "
                "yours returned x's shape unchanged. x.squeeze(dim) silently does nothing when "
                "that dimension's size is not 1: check x.shape[dim] and raise ValueError yourself.",
                f"{what} 应该抛出 ValueError，因为第 {dim} 维的长度是 {size}，不是 1；你的结果却原样返回了"
                "x 的形状。当该维度的长度不是 1 时，x.squeeze(dim) 会悄悄地什么都不做：请检查 "
                "x.shape[dim]，并自己抛出 ValueError。",
                evidence=["no_exception", "squeeze_noop"],
            )
        squeezed = tuple(x.squeeze().shape)
        if (
            isinstance(got, torch.Tensor)
            and tuple(got.shape) == squeezed
            and len(squeezed) < x.dim()
        ):
            fail(
                f"{what} should raise ValueError, because dimension {dim} has size {size}, not 1; "
                f"yours returned a tensor of shape {tuple(got.shape)}, removing other dimensions "
                "of size 1 instead (x.squeeze() removes all of them).",
                f"{what} 应该抛出 ValueError，因为第 {dim} 维的长度是 {size}，不是 1；你的结果却返回了"
                f"形状为 {tuple(got.shape)} 的张量，删掉的是其他长度为 1 的维度（x.squeeze() 会把它们全删掉）。",
                evidence=["no_exception", "squeezed_too_much"],
            )
        without = tuple(x.shape[:dim]) + tuple(x.shape[dim:][1:])
        if isinstance(got, torch.Tensor) and tuple(got.shape) == without:
            fail(
                f"{what} should raise ValueError, because dimension {dim} has size {size}, not 1; "
                f"yours removed it anyway and returned shape {tuple(got.shape)}: taking one "
                "slice of it (x.select(dim, 0), x[0]) or reducing over it (sum, mean, max) drops "
                "a dimension whatever its size. Check x.shape[dim] == 1 first and raise "
                "ValueError when it is not.",
                f"{what} 应该抛出 ValueError，因为第 {dim} 维的长度是 {size}，不是 1；你的代码却仍然删掉了它，"
                f"返回了形状 {tuple(got.shape)}：取它的一个切片（x.select(dim, 0)、x[0]）或沿它归约"
                "（sum、mean、max）都会去掉这一维，不管它的长度是多少。请先检查 x.shape[dim] == 1，"
                "不是 1 时抛出 ValueError。",
                evidence=["no_exception", "dim_removed_anyway"],
            )


def test_drop_dim_raises(learner, device, rng):
    for shape, dim in (((2, 3), 0), ((1, 3), 1), ((3, 1), -2), ((0, 1), 0)):
        x = torch.randn(*shape, generator=rng).to(device)
        _expect_value_error(learner, x, dim, _randn_code(shape, device))


@st.composite
def shapes_and_dims(draw):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    return shape, dim


@PROPERTY
@given(case=shapes_and_dims())
def test_drop_dim_property(learner, reference, device, case):
    shape, dim = case
    x = torch.arange(float(torch.Size(shape).numel())).reshape(shape).to(device)
    code = f"torch.arange({torch.Size(shape).numel()}.).reshape{shape}"
    if shape[dim] == 1:
        _check_drop(learner, reference, x, dim, code)
    else:
        _expect_value_error(learner, x, dim, code)


# ---------------------------------------------------------------------------------------------
# hwc_to_chw


def _same(a, b):
    return a.shape == b.shape and bool(torch.equal(a.detach().cpu(), b.detach().cpu()))


def _check_chw(learner, reference, img, code):
    what = f"hwc_to_chw(img) (img = {code})"
    got = expect_tensor(learner.hwc_to_chw(img), what)
    want = reference.hwc_to_chw(img)
    h, w, c = img.shape
    if tuple(got.shape) == (c, w, h) != (c, h, w) or (
        img.device.type != "meta" and not _same(got, want) and _same(got, img.permute(2, 1, 0))
    ):
        fail(
            f"{what} should be (C, H, W) = {(c, h, w)} with result[c, h, w] == img[h, w, c], but "
            f"yours is (C, W, H) = {tuple(got.shape)}: transpose(0, 2) (like permute(2, 1, 0) or "
            "img.T) also swaps height and width. Move only the channels to the front: "
            "permute(2, 0, 1).",
            f"{what} 应该是 (C, H, W) = {(c, h, w)}，且 result[c, h, w] == img[h, w, c]，但你的结果是 "
            f"(C, W, H) = {tuple(got.shape)}：transpose(0, 2)（以及 permute(2, 1, 0) 或 img.T）"
            "把高和宽也交换了。只把通道移到最前面：permute(2, 0, 1)。",
            evidence=["dims_permuted", "height_width_swapped"],
        )
    inverse = (
        tuple(got.shape) == (w, c, h) and len({h, w, c}) == 3
        if img.device.type == "meta"
        else not _same(got, want) and _same(got, img.permute(1, 2, 0))
    )
    if inverse:
        fail(
            f"{what} should be (C, H, W) = {(c, h, w)}, but yours is (W, C, H) = "
            f"{tuple(got.shape)}: permute(1, 2, 0) is the reverse move, (C, H, W) -> (H, W, C). "
            "permute's arguments list, for each dim of the result in turn, the input dim that "
            "goes there: (H, W, C) -> (C, H, W) takes dim 2 (C), then 0 (H), then 1 (W): "
            "permute(2, 0, 1).",
            f"{what} 应该是 (C, H, W) = {(c, h, w)}，但你的结果是 (W, C, H) = {tuple(got.shape)}："
            "permute(1, 2, 0) 是反方向的变换，即 (C, H, W) -> (H, W, C)。permute 的参数依次列出结果的"
            "每一维来自输入的哪一维：(H, W, C) -> (C, H, W) 依次取第 2 维（C）、第 0 维（H）、"
            "第 1 维（W）：permute(2, 0, 1)。",
            evidence=["dims_permuted", "permute_order"],
        )
    if img.device.type != "meta" and not _same(got, want) and _same(got, img.reshape(c, h, w)):
        fail(
            f"{what} has the right shape, {(c, h, w)}, but scrambled values: reshape (or view) "
            "keeps the elements in memory order and only regroups them, so result[0] is not the "
            "first channel. permute(2, 0, 1) moves the channel dimension itself.",
            f"{what} 的形状 {(c, h, w)} 是对的，但数值被打乱了：reshape（或 view）按内存顺序保留元素，"
            "只是重新分组，所以 result[0] 并不是第一个通道。permute(2, 0, 1) 才会真正移动通道这一维。",
            evidence=["values_differ", "reshape_not_permute"],
        )
    _equal_here(got, want, what)


def test_hwc_to_chw_values(learner, reference, device, rng):
    d = _on(device)
    for h, w, c in ((4, 6, 3), (5, 5, 3), (2, 7, 1), (3, 4, 4), (6, 2, 3)):
        img = torch.randn(h, w, c, generator=rng).to(device)
        _check_chw(learner, reference, img, f"torch.randn({h}, {w}, {c}{d})")
    img = torch.randint(0, 256, (4, 3, 3), generator=rng, dtype=torch.uint8).to(device)
    _check_chw(learner, reference, img, f"torch.randint(0, 256, (4, 3, 3){d}, dtype=torch.uint8)")


def _chw_of_view(learner, img):
    """learner.hwc_to_chw(img) for a non-contiguous img. A view error there, from code that
    gives img.reshape(C, H, W) for a contiguous copy, is named as the reshape it is: the
    catalogue's advice for view errors (use .reshape) would still scramble the channels."""
    try:
        return learner.hwc_to_chw(img)
    except LearnerRaised as exc:
        if "view size is not compatible" not in exc.text or img.device.type == "meta":
            raise
        h, w, c = img.shape
        try:
            fresh = learner.hwc_to_chw(img.contiguous())
        except LearnerRaised:
            raise exc from None
        if not isinstance(fresh, torch.Tensor) or not _same(fresh, img.reshape(c, h, w)):
            raise
        en, zh = exc.message.en.rstrip(), exc.message.zh.rstrip()
        exc.message = Text(
            f"{en}{'' if en.endswith('.') else '.'} On a contiguous copy of img your code gives "
            "img.reshape(C, H, W), which has the right shape but scrambled values: reshape and "
            "view keep the elements in memory order and only regroup them, so .reshape here "
            "would not fix it. permute(2, 0, 1) moves the channel dimension itself, on any "
            "layout.",
            f"{zh}{'' if zh.endswith('。') else '。'}对 img 的连续副本，你的代码给出的是 "
            "img.reshape(C, H, W)：形状对，但数值被打乱了。reshape 和 view 按内存顺序保留元素，"
            "只是重新分组，所以在这里改用 .reshape 也解决不了问题。permute(2, 0, 1) 才会真正移动"
            "通道这一维，对任何内存布局都成立。",
        )
        exc.evidence = (*exc.evidence, "reshape_not_permute")
        raise


def test_hwc_to_chw_any_layout(learner, device, rng):
    # The learner against itself: its answer for a permuted or cropped view, against its answer
    # for a contiguous copy of it. What the answer should be is test_hwc_to_chw_values's.
    d = _on(device)
    cases = [
        (
            f"torch.randn(3, 4, 6{d}).permute(1, 2, 0)",
            torch.randn(3, 4, 6, generator=rng).to(device).permute(1, 2, 0),
        ),
        (
            f"torch.randn(6, 9, 3{d})[1:-1, ::2]",
            torch.randn(6, 9, 3, generator=rng).to(device)[1:-1, ::2],
        ),
    ]
    for code, img in cases:
        what = f"hwc_to_chw(img) (img = {code})"
        got = expect_tensor(_chw_of_view(learner, img), what)
        fresh = expect_tensor(learner.hwc_to_chw(img.contiguous()), what)
        if _same(got, fresh) and got.dtype == fresh.dtype:
            continue
        diff_en, diff_zh = view_difference(got, fresh)
        fail(
            f"{what} differs from your own answer for a contiguous copy of img (img.contiguous()):"
            f" {diff_en}. The memory layout of the image must "
            "not change the result.",
            f"{what} 与你对 img 的连续副本（img.contiguous()）给出的结果不同："
            f"{diff_zh}。图像的内存布局不能改变结果。",
            evidence=["values_differ", "layout_changes_result"],
        )


# ---------------------------------------------------------------------------------------------
# Devices


def test_results_on_input_device(learner, device, rng):
    # Only the device (meta stands in for a GPU): shapes and values are the other tests'.
    img = torch.randn(3, 4, 5, generator=rng).to(device)
    for name, args, what in (
        (
            "add_batch_dim",
            (img,),
            Text(
                f"add_batch_dim(img) for img on {device}",
                f"img 位于 {device} 时的 add_batch_dim(img)",
            ),
        ),
        (
            "drop_dim",
            (img[:1], 0),
            Text(
                f"drop_dim(x, 0) for x of shape (1, 4, 5) on {device}",
                f"x 的形状为 (1, 4, 5)、位于 {device} 时的 drop_dim(x, 0)",
            ),
        ),
        (
            "hwc_to_chw",
            (img,),
            Text(f"hwc_to_chw(img) for img on {device}", f"img 位于 {device} 时的 hwc_to_chw(img)"),
        ),
    ):
        got = (
            on_meta(learner, name, args, what)
            if device == "meta"
            else getattr(learner, name)(*args)
        )
        assert_device(expect_tensor(got, what), device, what)
