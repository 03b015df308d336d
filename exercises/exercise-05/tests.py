"""Hidden tests of exercise-05: view/contiguous.

Inputs come in three memory layouts (contiguous, transposed, sliced), because the bug only shows
on some of them. Each test judges one requirement:
- the values tests compare with the reference on contiguous inputs (values only);
- the layout tests compare the learner's answer for a view with the same learner's answer for a
  contiguous copy of it, so a wrong formula costs the values tests alone and a layout slip (a
  view() that fails on a non-contiguous tensor) costs the layout tests;
- dtype and device have their own tests (float64, int64, float16 inputs; meta for the device).
Pitfalls from the seeds (000 §2.3, 001 §5.2, §7.2, 003 §2.2): .t() and .permute() only change the
strides, so .view() fails after them; .contiguous() helps only right before .view() (after the
transpose, not before it); reshape(B, H*W, C) without a permute scrambles pixels and channels.
"""

import ast
import functools
import itertools

import torch

from grader.sandbox.faults import LearnerFault
from grader.spec import Text
from grader.testing import (
    LearnerRaised,
    assert_close,
    assert_device,
    expect_tensor,
    fail,
    names,
    on_meta,
    view_difference,
)
from grader.testing.analysis.slips import slips

MATRICES = [(3, 4), (1, 5), (5, 1), (2, 2), (6, 7)]
IMAGES = [(2, 3, 4, 5), (1, 1, 3, 3), (3, 2, 1, 6), (2, 4, 6, 2)]


def _layouts(shape, rng, device):
    """The same kind of matrix as a transposed view and a sliced view."""
    a, b = shape
    yield "transposed view", torch.randn(b, a, generator=rng).to(device).t()
    yield "sliced view", torch.randn(a, 2 * b, generator=rng).to(device)[:, ::2]


# ---------------------------------------------------------------------------------------------
# .contiguous() in the wrong place


@functools.lru_cache(maxsize=16)  # read at every call of a test: parse each file once
def _function_source(source, name):
    """The source of the learner's function ``name`` ('' when it cannot be read)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            return ast.get_source_segment(source, node) or ""
    return ""


@functools.lru_cache(maxsize=16)
def _dropped_contiguous(source, name):
    """Whether the function's .contiguous() is a statement of its own whose result is thrown
    away: then it is not "too early", it does nothing (the grader names that slip itself)."""
    return any(s.kind == "discarded" and s.method == "contiguous" for s in slips(source, [name]))


def view_error_of(module, name, args):
    """Runs in the learner's process: module.<name>(*args), saying only whether view() refused."""
    try:
        getattr(module, name)(*args)
    except RuntimeError as exc:
        if "view size is not compatible" in str(exc):
            return {"view_error": True}
        raise
    return {"view_error": False}


def _call(learner, learner_source, name, *args):
    """learner.<name>(*args). When the function calls .contiguous() and view() still refuses,
    the contiguous() is in the wrong place: say so, instead of PyTorch's advice to call it."""
    if ".contiguous(" in _function_source(learner_source, name) and not _dropped_contiguous(
        learner_source, name
    ):
        if learner.run(view_error_of, name, list(args))["view_error"]:
            fail(
                f'{name} calls .contiguous(), but view() still fails ("view size is not '
                "compatible with input tensor's size and stride\"): the contiguous copy is made "
                "before the transpose or permute, which makes the tensor non-contiguous again. "
                "Call .contiguous() after it, right before .view() (x.t().contiguous().view(-1)), "
                "or use .reshape(), which copies when it must.",
                f'{name} 调用了 .contiguous()，但 view() 仍然失败（"view size is not compatible with '
                "input tensor's size and stride\"）：连续副本是在转置或 permute 之前做的，而转置之后张量"
                "又不连续了。请在它之后、紧挨着 .view() 之前调用 .contiguous()"
                "（x.t().contiguous().view(-1)），或者改用 .reshape()，它在必要时会复制。",
                evidence=["view_non_contiguous", "contiguous_before_transpose"],
            )
    try:
        return getattr(learner, name)(*args)
    except LearnerRaised as exc:
        if (
            "view_after_clone" in exc.evidence
            or exc.error is None
            or _VIEW_REFUSED not in exc.error.message
            or not _clone_refused(learner, name, args)
        ):
            raise
        # the clone and the view on lines of their own: what the learner's run saw decides
        raise LearnerRaised(
            exc.message, evidence=(*exc.evidence, "view_after_clone"), error=exc.error
        ) from None


_VIEW_REFUSED = "view size is not compatible with input tensor's size and stride"


def _clone_refused(learner, name, args):
    """Whether the learner's run shows view() refusing a tensor made by clone() (False where
    the run gives no answer)."""
    try:
        answer = learner.run(viewed_a_clone, name, list(args))
    except LearnerFault:
        return False
    return isinstance(answer, dict) and answer.get("viewed_clone") is True


def viewed_a_clone(module, name, args):
    """Runs in the learner's process: module.<name>(*args), saying whether the tensor that
    view() refused for its strides was made by clone(), wherever the two were written (one
    expression, two lines, a helper). clone() keeps the strides of a transposed tensor."""
    import weakref

    refusal = "view size is not compatible with input tensor's size and stride"
    clones = {}  # id -> weak reference: a WeakSet would compare tensors with ==
    refused = []
    tensor_clone, torch_clone, tensor_view = torch.Tensor.clone, torch.clone, torch.Tensor.view

    def clone_method(self, *a, **k):
        out = tensor_clone(self, *a, **k)
        clones[id(out)] = weakref.ref(out)
        return out

    def clone_function(input, *a, **k):
        out = torch_clone(input, *a, **k)
        clones[id(out)] = weakref.ref(out)
        return out

    def view(self, *a, **k):
        try:
            return tensor_view(self, *a, **k)
        except RuntimeError as exc:
            if refusal in str(exc):
                made = clones.get(id(self))
                refused.append(made is not None and made() is self)
            raise

    torch.Tensor.clone, torch.clone, torch.Tensor.view = clone_method, clone_function, view
    try:
        getattr(module, name)(*args)
    except Exception:  # noqa: BLE001 - the call raised before; only the views it made count
        pass
    finally:
        torch.Tensor.clone, torch.clone, torch.Tensor.view = tensor_clone, torch_clone, tensor_view
    return {"viewed_clone": bool(refused) and refused[-1]}


def _same_as_contiguous(got, fresh, what):
    """The learner's answer for a view equals its own answer for a contiguous copy."""
    got = expect_tensor(got, what)
    fresh = expect_tensor(fresh, what)
    a, b = got.detach().cpu(), fresh.detach().cpu()
    if a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b):
        return
    diff_en, diff_zh = view_difference(got, fresh)
    fail(
        f"{what.en} differs from your own answer for a contiguous copy of the same values "
        f"(.contiguous()): {diff_en}. The memory layout of "
        "the input must not change the result.",
        f"{what.zh}与你对同样数值的连续副本（.contiguous()）给出的结果不同："
        f"{diff_zh}。输入的内存布局不能改变结果。",
        evidence=["values_differ", "layout_changes_result"],
    )


# ---------------------------------------------------------------------------------------------
# flatten_transposed


def test_flatten_transposed_values(learner, reference, device, rng, learner_source):
    cases = [(torch.randn(a, b, generator=rng), "") for a, b in MATRICES]
    cases.append((torch.arange(12).reshape(3, 4), "int64"))
    cases.append((torch.randn(4, 3, generator=rng, dtype=torch.float64), "float64"))
    for x, name in cases:
        x = x.to(device)
        what = Text(
            f"flatten_transposed(x) for {'a ' + name + ' ' if name else ''}x of shape "
            f"{tuple(x.shape)}",
            f"x 的形状为 {tuple(x.shape)}{'、dtype 为 ' + name if name else ''} 时的 "
            "flatten_transposed(x)",
        )
        got = _call(learner, learner_source, "flatten_transposed", x)
        _explain_flatten(got, x, reference.flatten_transposed(x), what)
        assert_close(
            got,
            reference.flatten_transposed(x),
            what,
            rtol=0,
            atol=0,
            check_dtype=False,  # test_keeps_dtype's
            check_device=False,  # test_keeps_device's
        )


def _explain_flatten(got, x, want, what):
    """x's elements in their own row-major order where x.T's were due: a reshape (to (b, a),
    or straight to -1) used as if it transposed."""
    if not isinstance(got, torch.Tensor) or got.device.type == "meta" or x.dim() != 2:
        return
    mine, own = got.detach().cpu(), x.detach().cpu().reshape(-1)
    transposed = x.detach().cpu().t()
    if mine.shape == transposed.shape and torch.equal(mine.to(own.dtype), transposed):
        shape = tuple(transposed.shape)
        fail(
            f"{what.en} should be 1-D, shape ({x.numel()},), but yours is x.T itself, shape "
            f"{shape}: transposed, but not flattened. Flatten it too: x.t().reshape(-1) (or "
            "x.t().contiguous().view(-1)).",
            f"{what.zh}应该是一维的，形状为 ({x.numel()},)，但你的结果就是 x.T 本身，形状为 "
            f"{shape}：转置了，却没有展平。请再展平：x.t().reshape(-1)（或 "
            "x.t().contiguous().view(-1)）。",
            evidence=["wrong_shape", "transposed_not_flattened"],
        )
    if (
        mine.shape == own.shape
        and not torch.equal(own, want.detach().cpu().to(own.dtype))
        and torch.equal(mine.to(own.dtype), own)
    ):
        fail(
            f"{what.en} is x's elements in their own order, what x.reshape(-1) gives: a "
            "reshape (to (b, a) or straight to -1) keeps the row-major order and only cuts it "
            "anew, it does not transpose. Transpose first: x.t().reshape(-1).",
            f"{what.zh}是 x 的元素按它们自己的顺序排列，也就是 x.reshape(-1) 的结果：reshape（无论是 "
            "(b, a) 还是直接 -1）都保持行优先顺序，只是重新切分，并不转置。请先转置："
            "x.t().reshape(-1)。",
            evidence=["values_differ", "reshape_not_permute"],
        )


def test_flatten_transposed_any_layout(learner, device, rng, learner_source):
    # The learner against itself: a view of x, then a contiguous copy of that view.
    for shape in MATRICES:
        for layout, x in _layouts(shape, rng, device):
            what = Text(
                f"flatten_transposed(x) for x a {layout} of shape {shape}",
                f"x 为形状 {shape} 的{'转置视图' if layout.startswith('transposed') else '切片视图'}"
                "时的 flatten_transposed(x)",
            )
            got = _call(learner, learner_source, "flatten_transposed", x)
            fresh = _call(learner, learner_source, "flatten_transposed", x.contiguous())
            _same_as_contiguous(got, fresh, what)


# ---------------------------------------------------------------------------------------------
# to_sequence


def _sizes_misread(shape, image_shape):
    """The three sizes of ``shape`` after the batch, as reshape(B, H*W, C) writes them when
    ``B, H, W, C = images.shape`` (or any order but B, C, H, W) named the sizes: "C*H, W"; None
    unless exactly one such order gives ``shape`` and the sizes tell the orders apart."""
    if len(shape) != 3 or len(image_shape) != 4 or shape[0] != image_shape[0]:
        return None
    sizes = dict(zip("CHW", image_shape[1:], strict=True))
    if len(set(sizes.values())) < 3:
        return None  # two equal sizes: the order cannot be read from the shape
    found = [
        f"{'*'.join(d for d in 'CHW' if d != last)}, {last}"  # C*H, W or C*W, H
        for last in "HW"
        if shape[1:]
        == (image_shape[1] * image_shape[2] * image_shape[3] // sizes[last], sizes[last])
    ]
    return found[0] if len(found) == 1 else None


def _explain_sequence(got, images, want, what):
    """Name the classic wrong pixel orders before the generic comparison."""
    got = expect_tensor(got, what)
    if (
        got.device.type != "meta"
        and images.numel()
        and tuple(got.shape) != tuple(want.shape)
        and got.numel() == want.numel()
        and torch.equal(got.detach().cpu().reshape(-1).to(want.dtype), want.cpu().reshape(-1))
    ):
        b, hw, c = want.shape
        shape = tuple(got.shape)
        merged = shape == (b * hw, c)
        misread = _sizes_misread(shape, tuple(images.shape))
        if misread is not None:
            fail(
                f"{what.en} holds the expected values in the expected order, but shaped {shape} "
                f"instead of (B, H*W, C) = {(b, hw, c)}: yours is (B, {misread}), what "
                "reshape(B, H*W, C) gives when the sizes are unpacked in another order than "
                "images.shape holds them, (B, C, H, W). Unpack them in that order: "
                "B, C, H, W = images.shape.",
                f"{what.zh}包含的数值和顺序都是对的，但形状是 {shape}，而不是 (B, H*W, C) = "
                f"{(b, hw, c)}：你的结果是 (B, {misread})，这正是按与 images.shape 不同的顺序解包各维大小"
                "（images.shape 的顺序是 (B, C, H, W)）时 reshape(B, H*W, C) 得到的形状。"
                "请按这个顺序解包：B, C, H, W = images.shape。",
                evidence=["wrong_shape", "reshaped_in_order"],
            )
        fail(
            f"{what.en} holds the expected values in the expected order, but shaped {shape} "
            f"instead of (B, H*W, C) = {(b, hw, c)}"
            + (
                ": the batch dimension was merged into the rows (reshape(-1, C) does that). "
                "Keep it: "
                if merged
                else ". Give the result its three dimensions: "
            )
            + "reshape(B, H*W, C) with B = images.shape[0], or reshape(images.shape[0], -1, C).",
            f"{what.zh}包含的数值和顺序都是对的，但形状是 {shape}，而不是 (B, H*W, C) = {(b, hw, c)}"
            + (
                "：批次维被并进了行里（reshape(-1, C) 就会这样）。请保留它："
                if merged
                else "。请给结果这三个维度："
            )
            + "reshape(B, H*W, C)，其中 B = images.shape[0]，或者 reshape(images.shape[0], -1, C)。",
            evidence=["wrong_shape", "batch_merged" if merged else "reshaped_in_order"],
        )
    if got.device.type == "meta" or tuple(got.shape) != tuple(want.shape) or not images.numel():
        return
    b, c, h, w = images.shape
    mine, xs = got.detach().cpu(), images.detach().cpu()
    mine = mine.to(xs.dtype)
    if torch.equal(mine, want.cpu().to(xs.dtype)):
        return
    if torch.equal(mine, xs.reshape(b, h * w, c)):
        fail(
            f"{what.en} has the right shape, (B, H*W, C), but pixels and channels are scrambled: "
            "reshape(B, H*W, C) only cuts the values in their memory order (all of channel 0 "
            "first, then channel 1, ...) into rows of C, so a row does not hold one pixel's "
            "channels. Move the channels last first: images.permute(0, 2, 3, 1) is (B, H, W, C), "
            "then reshape it to (B, H*W, C).",
            f"{what.zh}的形状 (B, H*W, C) 是对的，但像素和通道被打乱了：reshape(B, H*W, C) 只是把按内存顺序"
            "排列的数值（先是通道 0 的全部数值，然后是通道 1……）切成每行 C 个，一行并不是同一个像素的各个通道。"
            "请先把通道移到最后：images.permute(0, 2, 3, 1) 的形状是 (B, H, W, C)，再把它 reshape 成 "
            "(B, H*W, C)。",
            evidence=["values_differ", "sequence_reshape_not_permute"],
        )
    if h != w and torch.equal(mine, xs.transpose(1, 3).reshape(b, h * w, c)):
        fail(
            f"{what.en} orders the pixels column by column: its order is (B, W, H, C), what "
            "permute(0, 3, 2, 1) or transpose(1, 3) gives, so row k is pixel (k % H, k // H), not (k // W, k % W). Use permute(0, 2, 3, 1): "
            "(B, H, W, C), with H before W.",
            f"{what.zh}按列的顺序排列像素：它的顺序是 (B, W, H, C)，也就是 permute(0, 3, 2, 1) 或 transpose(1, 3) 得到的顺序，于是第 k 行是像素 "
            "(k % H, k // H)，而不是 (k // W, k % W)。请使用 permute(0, 2, 3, 1)：(B, H, W, C)，H 在 W 之前。",
            evidence=["values_differ", "sequence_pixels_column_major"],
        )
    _another_permute(mine, xs, what)


# the orders the stories above name already, and the right one
_NAMED_ORDERS = ((0, 1, 2, 3), (0, 2, 3, 1), (0, 3, 2, 1))


def _another_permute(mine, xs, what):
    """Name images.permute(order).reshape(B, H*W, C) for another order of the dims, where one
    gives the learner's values (several do only by moving size-1 dims, and then each says the
    same). (0, 3, 1, 2), the move channels-last to channels-first, is permute's arguments read
    the other way round."""
    b, c, h, w = xs.shape
    fits = [
        order
        for order in itertools.permutations(range(4))
        if order not in _NAMED_ORDERS
        and xs.permute(order).numel() == mine.numel()
        and torch.equal(mine, xs.permute(order).reshape(b, h * w, c))
    ]
    if not fits:
        return
    # orders that move a size-1 dim give the same values: each describes them; the reverse
    # move is named where it is one of them
    # told only where C, H and W differ (C > 1): else another slip gives these values too
    inverse = (0, 3, 1, 2) in fits and c > 1 and len({c, h, w}) == 3
    order = ", ".join(map(str, (0, 3, 1, 2) if inverse else fits[0]))
    fail(
        f"{what.en}: your values are images.permute({order}).reshape(B, H*W, C). permute lists, "
        "for each dim of the result in turn, the input dim that goes there: (B, C, H, W) to "
        "(B, H, W, C) takes dims 0, 2, 3, 1, so permute(0, 2, 3, 1)"
        + (", and permute(0, 3, 1, 2) is the reverse move." if inverse else "."),
        f"{what.zh}：你的数值是 images.permute({order}).reshape(B, H*W, C)。permute 依次列出结果的每一维"
        "来自输入的哪一维：(B, C, H, W) 变成 (B, H, W, C) 要依次取第 0、2、3、1 维，即 permute(0, 2, 3, 1)"
        + ("；permute(0, 3, 1, 2) 是相反的变换。" if inverse else "。"),
        evidence=["values_differ", "permute_order"] if inverse else ["values_differ"],
    )


def _check_sequence(got, images, want, what):
    _explain_sequence(got, images, want, what)
    assert_close(got, want, what, rtol=0, atol=0, check_dtype=False, check_device=False)


def test_to_sequence_values(learner, reference, device, rng, learner_source):
    for shape in IMAGES:
        images = torch.randn(*shape, generator=rng).to(device)
        what = Text(
            f"to_sequence(images) for images of shape {shape}",
            f"images 的形状为 {shape} 时的 to_sequence(images)",
        )
        got = _call(learner, learner_source, "to_sequence", images)
        _check_sequence(got, images, reference.to_sequence(images), what)


def test_to_sequence_pixel_order(learner, reference, device, learner_source):
    # Every value names its own position (c*1000 + h*10 + w), so a wrong order is easy to read.
    b, c, h, w = 1, 3, 2, 4
    hh, ww = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
    images = (
        torch.stack([cc * 1000 + hh * 10 + ww for cc in range(c)]).unsqueeze(0).float().to(device)
    )
    what = Text(
        f"to_sequence(images) for images of shape {(b, c, h, w)} whose values are "
        "channel*1000 + row*10 + column",
        f"images 的形状为 {(b, c, h, w)}、数值为 通道*1000 + 行*10 + 列 时的 to_sequence(images)",
    )
    got = _call(learner, learner_source, "to_sequence", images)
    _check_sequence(got, images, reference.to_sequence(images), what)


def test_to_sequence_any_layout(learner, device, rng, learner_source):
    # The learner against itself: a channels-last or cropped view, then a contiguous copy.
    for b, c, h, w in IMAGES:
        channels_last = torch.randn(b, h, w, c, generator=rng).to(device).permute(0, 3, 1, 2)
        cropped = torch.randn(b, c, h + 2, w + 3, generator=rng).to(device)[:, :, 1:-1, 2:-1]
        for layout, zh, images in (
            ("channels-last view", "按通道在后存储的视图", channels_last),
            ("cropped view", "裁剪得到的视图", cropped),
        ):
            what = Text(
                f"to_sequence(images) for images a {layout} of shape {(b, c, h, w)}",
                f"images 为形状 {(b, c, h, w)} 的{zh}时的 to_sequence(images)",
            )
            got = _call(learner, learner_source, "to_sequence", images)
            fresh = _call(learner, learner_source, "to_sequence", images.contiguous())
            _same_as_contiguous(got, fresh, what)


# ---------------------------------------------------------------------------------------------
# dtype and device


# The dtype and device tests flatten an x of shape (1, 6): its transpose is contiguous, so a view()
# in the wrong place (the layout tests' and the values test's) still runs here.


def test_keeps_dtype(learner, rng, learner_source):
    # Only the dtype: the values are the other tests'.
    for dtype in (torch.float64, torch.int64, torch.float16):
        name = str(dtype).removeprefix("torch.")
        x = (torch.randn(1, 6, generator=rng) * 10).to(dtype)
        what = Text(
            f"flatten_transposed(x) for a {name} x", f"x 为 {name} 时的 flatten_transposed(x)"
        )
        got = expect_tensor(_call(learner, learner_source, "flatten_transposed", x), what)
        _keeps_dtype(got, dtype, what)
        images = (torch.randn(2, 3, 4, 5, generator=rng) * 10).to(dtype)
        what = Text(
            f"to_sequence(images) for {name} images", f"images 为 {name} 时的 to_sequence(images)"
        )
        got = expect_tensor(_call(learner, learner_source, "to_sequence", images), what)
        _keeps_dtype(got, dtype, what)


def test_keeps_device(learner, device, rng):
    # Only the device (meta stands in for a GPU): the values are the other tests'.
    x = torch.randn(1, 6, generator=rng).to(device)
    what = Text(
        f"flatten_transposed(x) for x on {device}", f"x 位于 {device} 时的 flatten_transposed(x)"
    )
    got = expect_tensor(_on(learner, device, "flatten_transposed", (x,), what), what)
    assert_device(got, device, what)
    images = torch.randn(2, 3, 4, 5, generator=rng).to(device)
    what = Text(
        f"to_sequence(images) for images on {device}",
        f"images 位于 {device} 时的 to_sequence(images)",
    )
    got = expect_tensor(_on(learner, device, "to_sequence", (images,), what), what)
    assert_device(got, device, what)


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


def _on(learner, device, name, args, what):
    if device == "meta":
        return on_meta(learner, name, args, what)
    return getattr(learner, name)(*args)
