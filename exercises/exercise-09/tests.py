"""Hidden tests of exercise-09: joining and splitting.

Seed pitfalls covered (001 §5.4, with 000 §2.3 and 003 §2.2 for split_heads):
- stack versus cat: "cat does not add a dimension, stack adds one where you say". cat of B images
  gives (B*C, H, W); stack on the wrong dim gives (C, B, H, W); stack of features gives (2, n, p)
  and cat along dim 0 puts b's rows under a's. Cases where the sizes happen to agree come first, so
  the slip shows as a named wrong shape rather than as PyTorch's size error.
- split_heads: feature j of head h is x[..., h*D + j], so the last dim is split as (H, D) and
  then dims 1 and 2 are swapped. Reshaping straight to (B, H, T, D) gives the right shape with
  scrambled values; splitting as (D, H) interleaves the heads. The property test builds inputs
  whose values name their own position, so a misplaced element says where it came from.
- view on a non-contiguous input fails where reshape copies: inputs stored time-major or sliced.
  Results may be non-contiguous views: only values, shape, dtype and device are checked.
- Tensors created on the CPU whatever the inputs' device: meta tensors stand in for a GPU.
"""

import itertools
import re
from contextlib import contextmanager

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing import (
    LearnerRaised,
    assert_close,
    assert_device,
    assert_shape,
    expect_tensor,
    fail,
    names,
    on_meta,
    view_difference,
)
from grader.testing.properties import PROPERTY


def _for_x(call, x, note=("", "")):
    """The name of a call on x, in both languages."""
    return Text(
        f"{call} for x of shape {_fmt(x.shape)}{note[0]}",
        f"x 的形状为 {_fmt(x.shape)}{note[1]}时的 {call}",
    )


def _fmt(shape):
    return "(" + ", ".join(map(str, shape)) + ("," if len(shape) == 1 else "") + ")"


# ---------------------------------------------------------------------------------------------
# stack_images


def _check_stacked(got, images, want, what):
    """Exactly the stacked batch; names cat-for-stack (where no squeeze gives the same) and a
    new dim in the wrong place."""
    got = expect_tensor(got, what)
    shape, expected = tuple(got.shape), tuple(want.shape)
    count, item = len(images), tuple(images[0].shape)
    # one image, or images of one channel: torch.cat's shape is also the stacked batch with a
    # size-1 dim squeezed away (torch.stack(images).squeeze()), and so are its values
    if shape != expected and count > 1 and item[0] > 1 and shape == (count * item[0], *item[1:]):
        we, wz = names(what)
        fail(
            f"{we} should have shape {_fmt(expected)}, but yours has shape {_fmt(shape)}: the "
            "images were joined along their existing first dim (channels), as torch.cat does. "
            "torch.stack adds a new dimension for the batch: torch.stack(images, dim=0).",
            f"{wz} 的形状应为 {_fmt(expected)}，但你的结果形状为 {_fmt(shape)}：这些图像沿它们已有的"
            "第一维（通道）拼在了一起，这是 torch.cat 的做法。torch.stack 会为批次新增一个维度："
            "torch.stack(images, dim=0)。",
            evidence=["wrong_shape", "cat_instead_of_stack"],
        )
    for dim in range(1, 4):
        elsewhere = (*item[:dim], count, *item[dim:])
        if shape != elsewhere:
            continue
        if shape == expected:  # same shape (e.g. B == C): only the values can tell
            if got.device.type == "meta":
                continue
            mine = got.detach().cpu()
            stacked = torch.stack([img.detach().cpu() for img in images], dim=dim)
            if (
                torch.equal(mine, want.cpu())
                or mine.dtype != stacked.dtype
                or not torch.equal(mine, stacked)
            ):
                continue
        we, wz = names(what)
        fail(
            f"{we}: your batch has the new dimension at dim={dim} (shape {_fmt(shape)}); the "
            f"batch dimension comes first: torch.stack(images, dim=0) gives {_fmt(expected)}.",
            f"{wz}：你的结果把新维度放在了 dim={dim}（形状为 {_fmt(shape)}）；批次维度应在最前面："
            f"torch.stack(images, dim=0) 得到 {_fmt(expected)}。",
            evidence=["wrong_shape" if shape != expected else "values_differ", "wrong_join_dim"],
        )
    if got.device.type == "meta" or want.device.type == "meta":
        assert_shape(got, want.shape, what)
        return
    # Values only, as the result's own dtype holds them: the dtype and the device have their own
    # tests.
    assert_close(
        got, want.to(got.dtype), what, rtol=0, atol=0, check_dtype=False, check_device=False
    )


def _images(rng, count, shape, device, layout="contiguous", dtype=torch.float32):
    c, h, w = shape
    images = []
    for _ in range(count):
        if dtype == torch.uint8:
            img = torch.randint(0, 256, (c, h, w), generator=rng, dtype=torch.uint8)
        elif layout == "channels-last":
            img = torch.randn(h, w, c, generator=rng).permute(2, 0, 1)
        elif layout == "cropped":
            img = torch.randn(c, h + 2, w + 3, generator=rng)[:, 1:-1, 2:-1]
        else:
            img = torch.randn(c, h, w, generator=rng)
        images.append(img.to(device))
    return images


STACKS = [(4, (3, 5, 6)), (3, (3, 2, 2)), (1, (3, 4, 4)), (5, (1, 2, 3)), (2, (2, 1, 1))]


_CONSTRUCTOR = re.compile(r"\btorch\.(tensor|as_tensor|Tensor|FloatTensor|DoubleTensor)\(")


@contextmanager
def _tensor_of_tensors():
    """PyTorch's "only one element tensors can be converted" raised on the learner's line that
    calls torch.tensor (or as_tensor, Tensor): a list of tensors given to a constructor of data.
    float(t) of a bigger tensor raises the same words, so the line must show the constructor."""
    try:
        yield
    except LearnerRaised as exc:
        line = exc.frames[-1].code if exc.frames else ""
        if "only one element tensors can be converted" in exc.text and _CONSTRUCTOR.search(line):
            en, zh = exc.message.en.rstrip(), exc.message.zh.rstrip()
            exc.message = Text(
                f"{en}{'' if en.endswith('.') else '.'} torch.tensor() takes numbers and lists "
                "of numbers: it tried to turn each image into one number. A list of tensors is "
                "joined with torch.stack(images, dim=0), which also keeps their dtype and device.",
                f"{zh}{'' if zh.endswith('。') else '。'}torch.tensor() 接收的是数字和数字的列表："
                "它试图把每张图像变成一个数字。由张量组成的列表要用 torch.stack(images, dim=0) "
                "拼接，它还会保留它们的 dtype 和设备。",
            )
            exc.evidence = (*exc.evidence, "tensor_of_tensors")
        raise


def test_stack_images_values(learner, reference, device, rng):
    cases = [(_images(rng, b, shape, device), ("", "")) for b, shape in STACKS]
    cases.append(
        (
            _images(rng, 3, (3, 4, 5), device, "channels-last"),
            (" stored channels-last", "（按通道在后存储）"),
        )
    )
    cases.append(
        (
            _images(rng, 2, (2, 3, 4), device, "cropped"),
            (" that are cropped views", "（裁剪得到的视图）"),
        )
    )
    cases.append(
        (
            _images(rng, 4, (3, 2, 3), device, dtype=torch.uint8),
            (" of dtype uint8", "（dtype 为 uint8）"),
        )
    )
    for images, note in cases:
        what = Text(
            f"stack_images(images) for {len(images)} images of shape {_fmt(images[0].shape)}"
            f"{note[0]}",
            f"对 {len(images)} 张形状为 {_fmt(images[0].shape)} 的图像{note[1]}调用的 "
            "stack_images(images)",
        )
        with _tensor_of_tensors():
            got = learner.stack_images(images)
        _check_stacked(got, images, reference.stack_images(images), what)


# ---------------------------------------------------------------------------------------------
# concat_features


def _check_concat(got, a, b, want, what):
    """Exactly a and b side by side; names stack-for-cat and joining along dim 0."""
    got = expect_tensor(got, what)
    (n, p), q = a.shape, b.shape[1]
    shape, expected = tuple(got.shape), tuple(want.shape)
    if shape != expected and p == q and shape in ((2, n, p), (n, 2, p)):
        we, wz = names(what)
        fail(
            f"{we} should have shape {_fmt(expected)}, but yours has shape {_fmt(shape)}: "
            "torch.stack added a new dimension. Joining features side by side keeps the number of "
            "dimensions: torch.cat([a, b], dim=1).",
            f"{wz} 的形状应为 {_fmt(expected)}，但你的结果形状为 {_fmt(shape)}：torch.stack 新增了一个维度。"
            "把特征左右拼接不会增加维度：torch.cat([a, b], dim=1)。",
            evidence=["wrong_shape", "stack_instead_of_cat"],
        )
    if shape != expected and p == q and shape == (2 * n, p):
        we, wz = names(what)
        # which rows went on top is read from the values (torch.cat([b, a]) puts b's first);
        # where the values cannot tell (meta, or a and b equal), a's are said to be on top
        first, second = ("a", "b")
        if got.device.type != "meta" and n and p:
            mine = got.detach().cpu()
            if not torch.equal(mine, torch.cat([a.cpu(), b.cpu()])) and torch.equal(
                mine, torch.cat([b.cpu(), a.cpu()])
            ):
                first, second = ("b", "a")
        fail(
            f"{we} should have shape {_fmt(expected)}, but yours has shape {_fmt(shape)}: "
            f"{second}'s rows were put under {first}'s (dim=0). The features lie along dim=1: "
            "torch.cat([a, b], dim=1).",
            f"{wz} 的形状应为 {_fmt(expected)}，但你的结果形状为 {_fmt(shape)}：{second} 的各行被接在了 "
            f"{first} 的下面（dim=0）。特征在 dim=1 上：torch.cat([a, b], dim=1)。",
            evidence=["wrong_shape", "wrong_join_dim"],
        )
    if (
        p == q
        and shape == (n, p)
        and n
        and p
        and got.device.type != "meta"
        and torch.allclose(got.detach().cpu().double(), (a.cpu() + b.cpu()).double())
    ):
        we, wz = names(what)
        fail(
            f"{we} should have shape {_fmt(expected)}, but yours has shape {_fmt(shape)}: it is "
            "a + b, the features added element by element. On tensors + is arithmetic, not the "
            "joining it is for Python lists: torch.cat([a, b], dim=1) lays them side by side.",
            f"{wz} 的形状应为 {_fmt(expected)}，但你的结果形状为 {_fmt(shape)}：它是 a + b，"
            "即特征逐元素相加。对张量来说 + 是算术运算，而不像 Python 列表那样表示拼接："
            "torch.cat([a, b], dim=1) 才会把它们左右并排。",
            evidence=["wrong_shape", "added_not_joined"],
        )
    if shape == expected and got.device.type != "meta" and n and p and q:
        mine = got.detach().cpu()
        if not torch.equal(mine, want.cpu()) and torch.equal(
            mine, torch.cat([b.cpu(), a.cpu()], dim=1)
        ):
            we, wz = names(what)
            fail(
                f"{we}: your result puts b's features first; a's come first, then b's. "
                "torch.cat lays its pieces out in the order of the list: torch.cat([a, b], dim=1).",
                f"{wz}：你的结果把 b 的特征放在了前面；应当先放 a 的特征，再放 b 的。"
                "torch.cat 按列表中的顺序排列各部分：torch.cat([a, b], dim=1)。",
                evidence=["values_differ", "join_order_swapped"],
            )
    if got.device.type == "meta" or want.device.type == "meta":
        assert_shape(got, want.shape, what)
        return
    # Values only, as the result's own dtype holds them: the dtype and the device have their own
    # tests.
    assert_close(
        got, want.to(got.dtype), what, rtol=0, atol=0, check_dtype=False, check_device=False
    )


CONCATS = [(4, 3, 3), (5, 2, 6), (1, 4, 1), (3, 0, 2), (2, 3, 0), (0, 2, 3)]


def test_concat_features_values(learner, reference, device, rng):
    cases = [
        (torch.randn(n, p, generator=rng), torch.randn(n, q, generator=rng), ("", ""))
        for n, p, q in CONCATS
    ]
    cases.append(
        (
            torch.randn(3, 5, generator=rng).t(),
            torch.randn(5, 4, generator=rng)[:, ::2],
            (" (a transposed view and a sliced view)", "（一个转置视图和一个切片视图）"),
        )
    )
    cases.append(
        (
            torch.randn(3, 2, generator=rng, dtype=torch.float64),
            torch.randn(3, 4, generator=rng, dtype=torch.float64),
            (" (float64)", "（float64）"),
        )
    )
    cases.append(
        (
            torch.randint(0, 9, (4, 2), generator=rng),
            torch.randint(0, 9, (4, 3), generator=rng),
            (" (int64)", "（int64）"),
        )
    )
    for a, b, note in cases:
        a, b = a.to(device), b.to(device)
        what = Text(
            f"concat_features(a, b) for a of shape {_fmt(a.shape)} and b of shape "
            f"{_fmt(b.shape)}{note[0]}",
            f"a 的形状为 {_fmt(a.shape)}、b 的形状为 {_fmt(b.shape)}{note[1]}时的 "
            "concat_features(a, b)",
        )
        _check_concat(learner.concat_features(a, b), a, b, reference.concat_features(a, b), what)


# ---------------------------------------------------------------------------------------------
# split_heads


_LAYOUT_EN = (
    "Feature j of head h is x[..., h*D + j]: split the last dim as (heads, D) first, "
    "x.reshape(B, T, heads, D), then swap dims 1 and 2 with .transpose(1, 2)."
)
_LAYOUT_ZH = (
    "第 h 个头的第 j 个特征是 x[..., h*D + j]：先把最后一维拆成 (heads, D)，"
    "即 x.reshape(B, T, heads, D)，再用 .transpose(1, 2) 交换第 1、2 维。"
)


def _expect_heads(got, x, heads, what):
    """split_heads's answer as a tensor; names the pieces of torch.chunk returned unjoined."""
    B, T, F = x.shape
    D = F // heads
    if (
        isinstance(got, (tuple, list))
        and len(got) == heads
        and all(type(p) is torch.Tensor and tuple(p.shape) == (B, T, D) for p in got)
    ):
        kind = type(got).__name__
        we, wz = names(what)
        fail(
            f"{we} should be one tensor of shape {_fmt((B, heads, T, D))}, but yours is a {kind} "
            f"of {heads} tensor{'s' if heads > 1 else ''} of shape {_fmt((B, T, D))}, one per "
            "head: torch.chunk (like "
            "torch.split) returns its pieces as a tuple. Join them, with the heads as a new dim "
            f"after the batch: torch.stack(chunks, dim=1) gives {_fmt((B, heads, T, D))}.",
            f"{wz} 应该是一个形状为 {_fmt((B, heads, T, D))} 的张量，但你的结果是由 {heads} 个形状为 "
            f"{_fmt((B, T, D))} 的张量组成的 {kind}，每个头一个：torch.chunk（和 torch.split 一样）"
            "以元组的形式返回切出的各块。请把它们拼起来，让头成为批次之后新增的一维："
            f"torch.stack(chunks, dim=1) 得到 {_fmt((B, heads, T, D))}。",
            evidence=["not_a_tensor", "pieces_not_joined"],
        )
    return expect_tensor(got, what)


_SPLIT_DIMS = ("B", "T", "heads", "D")


def _permuted_split(mine, x, heads):
    """The one order (other than the asked-for (0, 2, 1, 3) and no move at all) in which
    permuting x.reshape(B, T, heads, D) gives ``mine``, or None (none, or several)."""
    B, T, F = x.shape
    split = x.detach().cpu().reshape(B, T, heads, F // heads)
    right = split.permute(0, 2, 1, 3)
    if mine.shape == right.shape and torch.equal(mine, right):
        return None
    found = [
        order
        for order in itertools.permutations(range(4))
        if split.permute(order).shape == mine.shape and torch.equal(split.permute(order), mine)
    ]
    if len(found) != 1 or found[0] in ((0, 1, 2, 3), (0, 2, 1, 3)):
        return None
    return found[0]


def _joined_pieces(mine, x, heads, what):
    """Name two ways of joining the last dim's pieces wrongly: torch.split(x, heads, -1), whose
    second argument is a piece's size (so D pieces of `heads` features), stacked at dim 1; and
    the right chunks joined with torch.cat(..., dim=1), end to end along the time steps, where
    torch.stack adds the heads dim."""
    B, T, F = x.shape
    D = F // heads
    xs = x.detach().cpu()
    we, wz = names(what)
    expected = _fmt((B, heads, T, D))
    if D != heads and tuple(mine.shape) == (B, D, T, heads):
        if torch.equal(mine, torch.stack(torch.split(xs, heads, dim=-1), dim=1)):
            fail(
                f"{we} should have shape {expected}, but yours has shape "
                f"{_fmt(tuple(mine.shape))}: {D} pieces of {heads} feature{'s' if heads > 1 else ''} "
                "each. "
                f"torch.split(x, {heads}, dim=-1) cuts pieces of size {heads}: split's number is "
                f"a piece's size, chunk's is the number of pieces. Ask for {heads} pieces: "
                f"x.chunk({heads}, dim=-1), or x.split(D, dim=-1) with D = F // heads = {D}, "
                "then torch.stack(pieces, dim=1).",
                f"{wz} 的形状应为 {expected}，但你的结果形状为 {_fmt(tuple(mine.shape))}："
                f"是 {D} 块、每块 {heads} 个特征。torch.split(x, {heads}, dim=-1) 切出的每块大小为 "
                f"{heads}：split 的数字是每块的大小，chunk 的数字才是块数。要切成 {heads} 块："
                f"x.chunk({heads}, dim=-1)，或者 x.split(D, dim=-1)（D = F // heads = {D}），"
                "再用 torch.stack(pieces, dim=1)。",
                evidence=["wrong_shape", "split_size_not_count"],
            )
    if heads > 1 and tuple(mine.shape) == (B, heads * T, D):
        if torch.equal(mine, torch.cat(torch.chunk(xs, heads, dim=-1), dim=1)):
            fail(
                f"{we} should have shape {expected}, but yours has shape "
                f"{_fmt(tuple(mine.shape))}: the {heads} heads are cut right, but torch.cat "
                "joined them end to end along the time steps, a dim they already have. "
                "torch.stack adds a new dim for the heads: torch.stack(pieces, dim=1).",
                f"{wz} 的形状应为 {expected}，但你的结果形状为 {_fmt(tuple(mine.shape))}："
                f"{heads} 个头切得没错，但 torch.cat 沿着它们已有的时间步维度把它们首尾相接。"
                "torch.stack 才会为头新增一维：torch.stack(pieces, dim=1)。",
                evidence=["wrong_shape", "cat_instead_of_stack"],
            )


def _check_heads_shape(got, x, heads, what):
    """The (B, heads, T, D) shape; names heads left after the time steps and the dims of the
    split put in another order."""
    got = _expect_heads(got, x, heads, what)
    B, T, F = x.shape
    D = F // heads
    shape, expected = tuple(got.shape), (B, heads, T, D)
    if shape != expected and shape == (B, T, heads, D):
        we, wz = names(what)
        fail(
            f"{we} should have shape {_fmt(expected)}, but yours has shape {_fmt(shape)}: the "
            "features are split, but the heads still come after the time steps. Move them in "
            "front with .transpose(1, 2).",
            f"{wz} 的形状应为 {_fmt(expected)}，但你的结果形状为 {_fmt(shape)}：特征已经拆开了，"
            "但头的维度仍在时间步之后。请用 .transpose(1, 2) 把它移到前面。",
            evidence=["wrong_shape", "heads_not_transposed"],
        )
    if got.device.type != "meta" and x.device.type != "meta" and x.numel():
        _joined_pieces(got.detach().cpu(), x, heads, what)
    order = None
    if got.device.type != "meta" and x.device.type != "meta" and x.numel():
        order = _permuted_split(got.detach().cpu(), x, heads)
    if order is not None:
        we, wz = names(what)
        dims = ", ".join(_SPLIT_DIMS[i] for i in order)
        call = ", ".join(map(str, order))
        fail(
            f"{we} should be (B, heads, T, D) = {_fmt(expected)}, but yours is ({dims}) = "
            f"{_fmt(shape)}: x.reshape(B, T, heads, D).permute({call}). The split is right; the "
            "dims are in another order. permute's arguments list, for each dim of the result in "
            "turn, the input dim that goes there: (B, T, heads, D) -> (B, heads, T, D) is "
            "permute(0, 2, 1, 3), or .transpose(1, 2).",
            f"{wz} 应该是 (B, heads, T, D) = {_fmt(expected)}，但你的结果是 ({dims}) = "
            f"{_fmt(shape)}：即 x.reshape(B, T, heads, D).permute({call})。拆分本身是对的，"
            "只是维度顺序不对。permute 的参数依次列出结果的每一维来自输入的哪一维："
            "(B, T, heads, D) -> (B, heads, T, D) 是 permute(0, 2, 1, 3)，或 .transpose(1, 2)。",
            evidence=[
                "wrong_shape" if shape != expected else "values_differ",
                "dims_permuted",
                "permute_order",
            ],
        )
    assert_shape(got, expected, what)
    return got


def _check_heads(got, x, heads, want, what):
    """Exactly the reference's heads; names the classic wrong layouts."""
    got = _check_heads_shape(got, x, heads, what)
    B, T, F = x.shape
    D = F // heads
    if got.device.type != "meta" and x.numel():
        mine, xs = got.detach().cpu(), x.detach().cpu()
        if not torch.equal(mine, want.cpu()):
            for mistake, en, zh in (
                (
                    lambda: xs.reshape(B, heads, T, D),
                    "the shape is right, but the values are scrambled: x was reshaped straight "
                    "to (B, heads, T, D). reshape and view never move data; they cut the same "
                    "row-major sequence into a new shape, so time steps and heads get mixed.",
                    "形状是对的，但数值被打乱了：x 被直接 reshape 成了 (B, heads, T, D)。"
                    "reshape 和 view 从不移动数据，只是把同一个按行优先排列的序列切成新形状，"
                    "于是时间步和头混在了一起。",
                ),
                (
                    lambda: xs.reshape(B, T, D, heads).permute(0, 3, 1, 2),
                    "the heads are interleaved: the last dim was split as (D, heads), so head h "
                    "got features h, h + heads, h + 2*heads, ... instead of one block of D "
                    "consecutive features.",
                    "各个头被交错在一起了：最后一维被拆成了 (D, heads)，于是第 h 个头拿到的是第 h、"
                    "h + heads、h + 2*heads……个特征，而不是连续的 D 个特征。",
                ),
            ):
                if torch.equal(mine, mistake()):
                    we, wz = names(what)
                    fail(
                        f"{we}: {en} {_LAYOUT_EN}",
                        f"{wz}：{zh}{_LAYOUT_ZH}",
                        evidence=["values_differ", "heads_scrambled"],
                    )
    if got.device.type == "meta" or want.device.type == "meta":
        assert_shape(got, want.shape, what)
        return
    # Values only, as the result's own dtype holds them: the dtype and the device have their own
    # tests.
    assert_close(
        got, want.to(got.dtype), what, rtol=0, atol=0, check_dtype=False, check_device=False
    )


SPLITS = [(2, 3, 4, 5), (1, 4, 2, 3), (2, 2, 1, 6), (3, 1, 4, 2), (2, 5, 6, 1), (1, 3, 3, 3)]


def test_split_heads_values(learner, reference, device, rng):
    cases = [
        (torch.randn(b, t, h * d, generator=rng).to(device), h, ("", "")) for b, t, h, d in SPLITS
    ]
    cases.append(
        (
            torch.randn(2, 3, 8, generator=rng, dtype=torch.float64).to(device),
            2,
            (" (float64)", "（float64）"),
        )
    )
    for x, heads, note in cases:
        what = _for_x(f"split_heads(x, heads={heads})", x, note)
        _check_heads(learner.split_heads(x, heads), x, heads, reference.split_heads(x, heads), what)


def test_split_heads_any_layout(learner, device, rng):
    # The learner against itself: its answer for a non-contiguous x, against its answer for a
    # contiguous copy. What the answer should be is the values and property tests'.
    for b, t, h, d in [(2, 3, 4, 5), (3, 4, 2, 2), (1, 2, 3, 1)]:
        f = h * d
        cases = [
            (
                torch.randn(t, b, f, generator=rng).to(device).transpose(0, 1),
                (" stored time-major", "（按时间优先存储）"),
            ),
            (
                torch.randn(b, t, 2 * f, generator=rng).to(device)[..., ::2],
                (" a slice of every other feature", "（每隔一个特征切片得到）"),
            ),
            (
                torch.randn(b, f, t, generator=rng).to(device).transpose(1, 2),
                (" stored features-first", "（按特征优先存储）"),
            ),
        ]
        for x, note in cases:
            what = _for_x(f"split_heads(x, heads={h})", x, note)
            got = _expect_heads(learner.split_heads(x, h), x, h, what)
            fresh = _expect_heads(learner.split_heads(x.contiguous(), h), x, h, what)
            mine, theirs = got.detach().cpu(), fresh.detach().cpu()
            if (
                mine.shape == theirs.shape
                and mine.dtype == theirs.dtype
                and torch.equal(mine, theirs)
            ):
                continue
            we, wz = names(what)
            diff_en, diff_zh = view_difference(got, fresh)
            fail(
                f"{we} differs from your own answer for a contiguous copy of x (x.contiguous()): "
                f"{diff_en}. The memory layout of x must not "
                "change the result.",
                f"{wz} 与你对 x 的连续副本（x.contiguous()）给出的结果不同："
                f"{diff_zh}。x 的内存布局不能改变结果。",
                evidence=["values_differ", "layout_changes_result"],
            )


@settings(parent=PROPERTY, max_examples=15)
@given(
    b=st.integers(1, 2),
    t=st.integers(1, 4),
    heads=st.integers(1, 4),
    d=st.integers(1, 4),
)
def test_split_heads_property(learner, b, t, heads, d):
    # Every value names its own position: x[bb, tt, f] == bb*10000 + tt*100 + f.
    f = heads * d
    bb, tt, ff = torch.meshgrid(torch.arange(b), torch.arange(t), torch.arange(f), indexing="ij")
    x = (bb * 10000 + tt * 100 + ff).float()
    what = _for_x(f"split_heads(x, heads={heads})", x)
    got = _check_heads_shape(learner.split_heads(x, heads), x, heads, what)
    mine = got.detach().cpu()
    for index in torch.cartesian_prod(
        torch.arange(b), torch.arange(heads), torch.arange(t), torch.arange(d)
    ).tolist():
        i, h, s, j = index
        value = float(mine[i, h, s, j])
        if value != float(x[i, s, h * d + j]):
            code = int(value)
            came_from = (
                f"x[{code // 10000}, {code % 10000 // 100}, {code % 100}]"
                if value == code and 0 <= code < 30000
                else f"{value:g}"
            )
            we, wz = names(what)
            fail(
                f"{we}: result[{i}, {h}, {s}, {j}] (head {h}, time {s}, feature {j}) should be "
                f"x[{i}, {s}, {h * d + j}] = x[..., h*D + j], but yours holds {came_from}. "
                f"{_LAYOUT_EN}",
                f"{wz}：result[{i}, {h}, {s}, {j}]（第 {h} 个头、第 {s} 个时间步、第 {j} 个特征）应为 "
                f"x[{i}, {s}, {h * d + j}] = x[..., h*D + j]，但你的结果是 {came_from}。{_LAYOUT_ZH}",
                evidence=["values_differ", "heads_scrambled"],
            )


# ---------------------------------------------------------------------------------------------
# Devices


def test_results_on_input_device(learner, device, rng):
    # Only the device (meta tensors carry a device but no data: a tensor made on the CPU next to
    # them fails here exactly as it would next to CUDA inputs). a and b have the same shape, so a
    # join along the wrong dim (the values tests') still runs.
    images = [torch.randn(3, 4, 5, generator=rng).to(device) for _ in range(2)]
    a, b = torch.randn(4, 3, generator=rng).to(device), torch.randn(4, 3, generator=rng).to(device)
    x = torch.randn(2, 3, 8, generator=rng).to(device)
    for name, args, what in (
        (
            "stack_images",
            (images,),
            Text(
                f"stack_images(images) for 2 images of shape (3, 4, 5) on {device}",
                f"对 2 张形状为 (3, 4, 5)、位于 {device} 的图像调用的 stack_images(images)",
            ),
        ),
        (
            "concat_features",
            (a, b),
            Text(
                f"concat_features(a, b) for a and b of shape (4, 3) on {device}",
                f"a 和 b 的形状为 (4, 3)、位于 {device} 时的 concat_features(a, b)",
            ),
        ),
        (
            "split_heads",
            (x, 2),
            Text(
                f"split_heads(x, heads=2) for x of shape (2, 3, 8) on {device}",
                f"x 的形状为 (2, 3, 8)、位于 {device} 时的 split_heads(x, heads=2)",
            ),
        ),
    ):
        with _tensor_of_tensors():
            got = (
                on_meta(learner, name, args, what)
                if device == "meta"
                else getattr(learner, name)(*args)
            )
        if name == "split_heads":
            got = _expect_heads(got, x, 2, what)
        assert_device(expect_tensor(got, what), device, what)


def test_keeps_dtype(learner, rng):
    # Only the dtype, for float64 and uint8 inputs: the values are the other tests'.
    for dtype in (torch.float64, torch.uint8):
        name = str(dtype).removeprefix("torch.")
        images = [(torch.rand(3, 4, 5, generator=rng) * 200).to(dtype) for _ in range(2)]
        a = (torch.rand(4, 3, generator=rng) * 200).to(dtype)
        b = (torch.rand(4, 3, generator=rng) * 200).to(dtype)  # a's shape: see the device test
        x = (torch.rand(2, 3, 8, generator=rng) * 200).to(dtype)
        for call, args, what in (
            (
                "stack_images",
                (images,),
                Text(
                    f"stack_images(images) for {name} images",
                    f"图像为 {name} 时的 stack_images(images)",
                ),
            ),
            (
                "concat_features",
                (a, b),
                Text(
                    f"concat_features(a, b) for {name} a and b",
                    f"a 和 b 为 {name} 时的 concat_features(a, b)",
                ),
            ),
            (
                "split_heads",
                (x, 2),
                Text(
                    f"split_heads(x, heads=2) for a {name} x",
                    f"x 为 {name} 时的 split_heads(x, heads=2)",
                ),
            ),
        ):
            with _tensor_of_tensors():
                got = getattr(learner, call)(*args)
            if call == "split_heads":
                got = _expect_heads(got, x, 2, what)
            got = expect_tensor(got, what)
            if got.dtype != dtype:
                we, wz = names(what)
                yours = str(got.dtype).removeprefix("torch.")
                fail(
                    f"{we} should keep the inputs' dtype, {name}, but yours has dtype {yours}.",
                    f"{wz} 应当保持输入的 dtype {name}，但你的结果是 {yours}。",
                    evidence=["wrong_dtype", "dtype_not_kept"],
                )
