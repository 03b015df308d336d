"""How a wrong answer relates to the expected one: evidence computed on the trusted side.

A learner's wrong tensor is seldom random: it is often the expected answer transposed, its
diagonal, the same reduction over another dim or with ``keepdim`` flipped, the answer scaled by a
ratio of the input's sizes (a sum for a mean, ``n`` for ``n - 1``), or shifted by one. Each
relation found here names an evidence tag (which picks a diagnosis in the catalogue) and says
the relation in both languages ("your answer is the expected one transposed"), so the learner
reads what their answer *is*, not only that it differs.

Every relation is a strict equality up to the comparison's tolerance, checked on both the
learner's answer and the expected one (a reduction must reproduce both from the same input): a
coincidence cannot name a mistake the learner did not make. Nothing here runs learner code; the
inputs are the trusted side's copies of the arguments of the latest learner call
(:func:`remember`).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import torch

# The arguments of the latest learner call (the trusted side's own tensors, as sent), and the
# shapes of all its tensor arguments (meta ones too).
_inputs: list[torch.Tensor] = []
_shapes: list[tuple[int, ...]] = []
_MAX_INPUT_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class Relation:
    """``tag``: the evidence it adds (none for a relation that only explains the message)."""

    tag: str
    en: str
    zh: str


def remember(args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> None:
    """Note the tensor arguments of a learner call (for relations that replay a reduction)."""
    _inputs.clear()
    _shapes.clear()
    for value in [*args, *(kwargs or {}).values()]:
        if type(value) is torch.Tensor:
            _shapes.append(tuple(int(d) for d in value.shape))
        if (
            type(value) is torch.Tensor
            and value.device.type != "meta"
            and 0 < value.numel() <= _MAX_INPUT_ELEMENTS
        ):
            _inputs.append(value.detach())


def argument_shapes() -> tuple[tuple[int, ...], ...]:
    """The shapes of the tensor arguments of the latest learner call (meta ones too): what a
    story about "the input" may say, since the failing call is the latest one."""
    return tuple(_shapes)


def forget() -> None:
    _inputs.clear()
    _shapes.clear()


def _shape(shape: Sequence[int]) -> str:
    dims = tuple(int(d) for d in shape)
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def _close(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> bool:
    if a.shape != b.shape:
        return False
    if a.numel() == 0:
        return True
    return bool(torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=True).all())


def _plain(t: torch.Tensor) -> torch.Tensor:
    t = t.detach().cpu()
    if t.dtype == torch.bool:
        return t.to(torch.float64)
    if t.is_complex():
        return t.to(torch.complex128)
    return t.to(torch.float64)


def relate(
    got: torch.Tensor, expected: torch.Tensor, *, rtol: float = 1e-4, atol: float = 1e-5
) -> Relation | None:
    """The relation that holds between ``got`` and ``expected``, or None.

    Called only for a failing comparison; both tensors are real ``torch.Tensor``s already on
    the trusted side. A relation is only named when it is exact (within tolerance), when the
    expected answer is not itself unchanged by it (a symmetric matrix is its own transpose),
    and when no other relation holds too: [0, 1, 2] is [1, 2, 0] sorted and also rolled by
    one, and which the learner did is not known, so neither is named.
    """
    if got.device.type == "meta" or expected.device.type == "meta":
        return None
    if got.numel() == 0 or expected.numel() == 0 or got.numel() > _MAX_INPUT_ELEMENTS:
        return None
    if expected.numel() > _MAX_INPUT_ELEMENTS:
        return None
    a, b = _plain(got), _plain(expected)
    rtol, atol = max(rtol, 1e-5), max(atol, 1e-6)
    found = [r for r in (finder(a, b, rtol, atol) for finder in _FINDERS) if r is not None]
    # a story that another one found says in more words is not another story
    found = [r for r in found if not any(_REFINES.get(o.tag) == r.tag for o in found)]
    if len({(r.tag, r.en) for r in found}) != 1:
        return None
    return found[0]


# story -> the story it refines: a reduction's kept (or dropped) dim is an answer whose shape
# differs only by a size-1 dim, told with the reduction that made it
_REFINES = {"keepdim_kept": "size_one_dims", "keepdim_dropped": "size_one_dims"}


def same_values(got: torch.Tensor, expected: torch.Tensor) -> bool:
    """Whether ``got`` holds the expected values (same shape), whatever its dtype or device:
    for "right in values, but the wrong dtype / device"."""
    if got.device.type == "meta" or expected.device.type == "meta":
        return False
    if got.shape != expected.shape or got.numel() > _MAX_INPUT_ELEMENTS:
        return False
    rtol, atol = (1e-2, 1e-2) if torch.float16 in (got.dtype, expected.dtype) else (1e-4, 1e-5)
    if torch.bfloat16 in (got.dtype, expected.dtype):
        rtol, atol = 1e-2, 1e-2
    return _close(_plain(got), _plain(expected), rtol, atol)


# ---------------------------------------------------------------------------------------------
# The relations, most telling first


def _transposed(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    if a.dim() != b.dim() or a.dim() < 2 or a.dim() > 4:
        return None
    if sorted(a.shape) != sorted(b.shape):
        return None
    for order in itertools.permutations(range(b.dim())):
        if order == tuple(range(b.dim())):
            continue
        kept = [d for d in order if b.shape[d] != 1]
        if kept == sorted(kept):
            continue  # only size-1 dims move: the same values in the same order, reshaped
        moved = b.permute(order)
        if moved.shape != a.shape or _close(moved, b, rtol, atol):
            continue  # the expected answer is its own permutation: says nothing
        if _close(a, moved, rtol, atol):
            if b.dim() == 2:
                return Relation(
                    "answer_transposed",
                    "Your answer is the expected one transposed (rows and columns swapped).",
                    "你的结果正好是期望结果的转置（行和列互换了）。",
                )
            dims = ", ".join(map(str, order))
            return Relation(
                "answer_permuted",
                f"Your answer is the expected one with its dims reordered: the expected "
                f"answer.permute({dims}).",
                f"你的结果是期望结果换了维度顺序之后的样子：即期望结果.permute({dims})。",
            )
    return None


def _diagonal(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    if a.dim() != b.dim() - 1 or b.dim() < 2:
        return None
    n, m = b.shape[-2], b.shape[-1]
    if n < 2 or m < 2:
        return None
    diag = b.diagonal(dim1=-2, dim2=-1)
    if a.shape == diag.shape and _close(a, diag, rtol, atol):
        return Relation(
            "answer_diagonal",
            f"Your answer is the diagonal of the expected {_shape(b.shape)} answer: it pairs item "
            "i with item i only, where every item should meet every other one (i with j).",
            f"你的结果是期望的 {_shape(b.shape)} 结果的对角线：它只把第 i 项与第 i 项配对，"
            "而应当让每一项与其他每一项（第 i 项与第 j 项）都配对。",
        )
    return None


def _all_pairs(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    """``got`` is ``(..., n, n)`` where ``(..., n)`` was due, and its diagonal is the expected
    answer: ``x[:, idx]`` took column ``idx[j]`` of every row ``i``, for every pair (i, j).
    Only when the pairs vary both ways: a copy of the answer along one dim is a broadcast."""
    if a.dim() != b.dim() + 1 or b.dim() < 1 or a.dim() > 4:
        return None
    n = b.shape[-1]
    if n < 2 or a.shape[-2:] != (n, n) or a.shape[:-1] != b.shape:
        return None
    if not _close(a.diagonal(dim1=-2, dim2=-1), b, rtol, atol):
        return None
    across = a.narrow(-1, 0, 1).expand_as(a)  # each row one value: the answer broadcast
    down = a.narrow(-2, 0, 1).expand_as(a)
    if _close(a, across, rtol, atol) or _close(a, down, rtol, atol):
        return None
    shape = _shape(a.shape)
    return Relation(
        "index_all_pairs",
        f"Your answer is a {shape} matrix whose diagonal is the expected answer: element (i, j) "
        "pairs row i with the index meant for row j (x[:, idx] takes column idx[j] of every row "
        "i). Pair each row with its own index: x[torch.arange(n), idx], or gather along dim 1.",
        f"你的结果是一个 {shape} 的矩阵，它的对角线才是期望结果：元素 (i, j) 把第 i 行与第 j 行的"
        "下标配在了一起（x[:, idx] 会从每一行 i 取出第 idx[j] 列）。应让每行只配它自己的下标："
        "x[torch.arange(n), idx]，或沿 dim 1 使用 gather。",
    )


def _size_one(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    if a.shape == b.shape or a.numel() != b.numel():
        return None
    if [d for d in a.shape if d != 1] != [d for d in b.shape if d != 1]:
        return None
    if not _close(a.reshape(b.shape), b, rtol, atol):
        return None
    story = size_one_story(a.shape, b.shape)
    if story is None:
        return None
    en, zh = story
    return Relation(
        "size_one_dims",
        f"Your answer holds the expected values, but with {en}",
        f"你的结果数值正确，但{zh}",
    )


def size_one_story(got: Sequence[int], want: Sequence[int]) -> tuple[str, str] | None:
    """What a shape that differs from the one asked for only by size-1 dims has, as a clause
    ("an extra size-1 dimension, dim 1: shape (4, 1) instead of (4,) (...)."): which dim is
    extra or missing, and the steps that make such a shape: the input's own shape, or a
    squeeze() of every size-1 dim of the input, where that is the answer's shape alone; else
    the steps that add (or drop) a dim, with a reduction's keepdim among them only where a
    reduction of an input over that dim has the shape. Shapes alone never tell an integer
    index from a squeeze(), or keepdim from an unsqueeze: no one of them is prescribed."""
    a, b = tuple(int(d) for d in got), tuple(int(d) for d in want)
    if a == b or [d for d in a if d != 1] != [d for d in b if d != 1]:
        return None
    yours, asked = _shape(a), _shape(b)
    extra = len(a) > len(b)
    longer, shorter = (a, b) if extra else (b, a)
    at = _removed_dim(longer, shorter)
    if at is None:
        return (
            f"its size-1 dimensions in other places: shape {yours} instead of {asked}.",
            f"长度为 1 的维度位置不对：形状为 {yours}，而不是 {asked}。",
        )
    if extra:
        head_en = f"an extra size-1 dimension, dim {at}: shape {yours} instead of {asked}"
        head_zh = f"多了一个长度为 1 的维度（第 {at} 维）：形状为 {yours}，而不是 {asked}"
        cause = _extra_cause(a, b, at)
    else:
        head_en = f"the size-1 dimension dim {at} missing: shape {yours} instead of {asked}"
        head_zh = f"少了长度为 1 的第 {at} 维：形状为 {yours}，而不是 {asked}"
        cause = _missing_cause(a, b, at)
    en, zh = cause
    return f"{head_en} ({en}).", f"{head_zh}（{zh}）。"


def _removed_dim(longer: tuple[int, ...], shorter: tuple[int, ...]) -> int | None:
    """The one size-1 dim of ``longer`` whose removal gives ``shorter`` (the first of a run of
    size-1 dims, which are all alike), or None when it is not exactly one dim."""
    if len(longer) != len(shorter) + 1:
        return None
    for p, size in enumerate(longer):
        if size == 1 and longer[:p] + longer[p + 1 :] == shorter:
            return p
    return None


def _extra_cause(a: tuple[int, ...], b: tuple[int, ...], at: int) -> tuple[str, str]:
    return _size_one_cause(
        whole=lambda x: (
            (
                f"that is the shape of the input itself: its size-1 dim {at} is still there, "
                f"where the answer has none; squeeze({at}) removes exactly that one",
                f"这正是输入本身的形状：输入的第 {at} 维（长度为 1）还在，而结果中不应有它；"
                f"squeeze({at}) 只删除这一维",
            )
            if x == a
            else None
        ),
        step=(
            f"find the step that adds dim {at}: an unsqueeze, a None index, a reshape or view "
            "with an extra 1, a (d, 1) column in a matrix product or brackets around a value",
            f"找出添加第 {at} 维的那一步：unsqueeze、None 索引、多写了一个 1 的 reshape 或 view、"
            "矩阵乘法中形状为 (d, 1) 的列，或者把值放进了方括号",
        ),
        reduced=(len(a), at, b),
        reduction=lambda x: (
            f", or a reduction over dim {at} of the input, shape {_shape(x)}, with keepdim=True",
            f"，或者对形状为 {_shape(x)} 的输入沿第 {at} 维做了 keepdim=True 的归约",
        ),
    )


def _missing_cause(a: tuple[int, ...], b: tuple[int, ...], at: int) -> tuple[str, str]:
    return _size_one_cause(
        whole=lambda x: (
            (
                f"that is the shape of the input, {_shape(x)}, with every size-1 dim removed, "
                "as squeeze() with no dim gives it; squeeze(d) removes dim d only",
                f"这正是形状为 {_shape(x)} 的输入去掉所有长度为 1 的维度后的形状，"
                "不带 dim 的 squeeze() 得到的就是它；squeeze(d) 只删除第 d 维",
            )
            if 1 in x and len(x) > len(a) and tuple(d for d in x if d != 1) == a
            else None
        ),
        step=(
            f"find the step that drops dim {at}: squeeze() with no dim removes every size-1 "
            "dim, and an integer index (x[i]) drops the dim it indexes, where a slice "
            "(x[i:i + 1]) keeps it",
            f"找出去掉第 {at} 维的那一步：不带 dim 的 squeeze() 会删除所有长度为 1 的维度，"
            "整数索引（x[i]）会去掉被索引的那一维，而切片（x[i:i + 1]）会保留它",
        ),
        reduced=(len(b), at, a),
        reduction=lambda x: (
            f"; a reduction over dim {at} of the input, shape {_shape(x)}, drops it too "
            "unless keepdim=True",
            f"；对形状为 {_shape(x)} 的输入沿第 {at} 维归约也会去掉它，除非设 keepdim=True",
        ),
    )


def _size_one_cause(
    *,
    whole: Callable[[tuple[int, ...]], tuple[str, str] | None],
    step: tuple[str, str],
    reduced: tuple[int, int, tuple[int, ...]],
    reduction: Callable[[tuple[int, ...]], tuple[str, str]],
) -> tuple[str, str]:
    """Why a size-1 dim is extra or missing, read from the inputs' shapes: ``whole`` tells the
    input shape that is the answer's as it stands (the input itself, or the input squeezed),
    if one is; else the ``step`` to look for, and, where an input of ``reduced`` = (rank,
    dim, rest) has that dim larger than 1 and is ``rest`` without it, the ``reduction`` of it
    that would give the answer's shape too."""
    for x in _shapes:
        told = whole(x)
        if told is not None:
            return told
    en, zh = step
    rank, at, rest = reduced
    for x in _shapes:
        if len(x) == rank and x[at] > 1 and x[:at] + x[at + 1 :] == rest:
            more_en, more_zh = reduction(x)
            return en + more_en, zh + more_zh
    return en, zh


_REDUCTIONS: tuple[tuple[str, Callable[..., torch.Tensor]], ...] = (
    ("sum", lambda x, d, k: x.sum(dim=d, keepdim=k)),
    ("mean", lambda x, d, k: x.mean(dim=d, keepdim=k)),
    ("amax", lambda x, d, k: x.amax(dim=d, keepdim=k)),
    ("amin", lambda x, d, k: x.amin(dim=d, keepdim=k)),
    ("argmax", lambda x, d, k: x.argmax(dim=d, keepdim=k)),
    ("argmin", lambda x, d, k: x.argmin(dim=d, keepdim=k)),
    ("std", lambda x, d, k: x.std(dim=d, keepdim=k)),
    ("var", lambda x, d, k: x.var(dim=d, keepdim=k)),
    ("softmax", lambda x, d, k: x.softmax(dim=d)),
    ("cumsum", lambda x, d, k: x.cumsum(dim=d)),
)
_NO_KEEPDIM = ("softmax", "cumsum")


def _reduced(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    """``got`` and ``expected`` are the same reduction of the same input, over different dims
    or with ``keepdim`` different."""
    if a.numel() < 2 or bool((a == a.flatten()[0]).all()):
        return None  # one value, or the same everywhere: too little to name a reduction
    for x in _inputs:
        if not (x.dtype.is_floating_point and 1 <= x.dim() <= 4):
            continue
        xs = x.detach().cpu().to(torch.float64)
        if _a_slice_of(xs, a) or _a_slice_of(xs, b):
            continue  # a row of the input is also a selection: a reduction is one guess of two
        for name, op in _REDUCTIONS:
            keeps = (False,) if name in _NO_KEEPDIM else (False, True)
            # over a dim of size 1 a reduction changes nothing: it names no dim
            options = [(d, k) for d in range(xs.dim()) if xs.shape[d] > 1 for k in keeps]
            want = [(d, k) for d, k in options if _matches(op, xs, d, k, b, rtol, atol)]
            if not want:
                continue
            for d, k in options:
                if (d, k) in want or not _matches(op, xs, d, k, a, rtol, atol):
                    continue
                wd, wk = want[0]
                return _reduction_relation(name, d, k, wd, wk)
    return None


def _a_slice_of(x: torch.Tensor, t: torch.Tensor) -> bool:
    """Whether ``t``'s values are one slice ``x.select(d, i)`` of the input (for any d, i)."""
    flat = t.reshape(-1)
    for d in range(x.dim()):
        if x.shape[d] > 256:
            continue
        for i in range(x.shape[d]):
            part = x.select(d, i).reshape(-1)
            if part.shape == flat.shape and _close(part, flat, 1e-6, 1e-9):
                return True
    return False


def _matches(
    op: Callable[..., torch.Tensor],
    x: torch.Tensor,
    d: int,
    k: bool,
    target: torch.Tensor,
    rtol: float,
    atol: float,
) -> bool:
    try:
        value = op(x, d, k)
    except RuntimeError:
        return False
    return value.shape == target.shape and _close(value.to(torch.float64), target, rtol, atol)


def _reduction_relation(name: str, d: int, k: bool, wd: int, wk: bool) -> Relation:
    def call(dim: int, keep: bool) -> str:
        extra = ", keepdim=True" if keep else ""
        return f"x.{name}(dim={dim}{extra})"

    yours, wanted = call(d, k), call(wd, wk)
    if d == wd:
        # the values say the reduced dim is there (or not), never how: an unsqueeze after the
        # reduction gives keepdim's answer too
        how_en = " (keepdim=True, or an unsqueeze after the reduction)" if k else ""
        how_zh = "（keepdim=True，或者在归约之后 unsqueeze）" if k else "（keepdim）"
        return Relation(
            "keepdim_kept" if k else "keepdim_dropped",
            f"Your answer is {yours} where {wanted} was expected (x: the input): the same "
            f"reduction over the same dim, with the reduced dim {'kept' if k else 'dropped'}"
            f"{how_en}.",
            f"你的结果是 {yours}，而期望的是 {wanted}（x 为输入）：沿同一维度做了同样的归约，"
            f"但{'多保留了' if k else '丢掉了'}被归约的维度{how_zh}。",
        )
    return Relation(
        "reduced_wrong_dim",
        f"Your answer is {yours} where {wanted} was expected (x: the input): the right "
        f"reduction over another dim. dim names the dimension that disappears.",
        f"你的结果是 {yours}，而期望的是 {wanted}（x 为输入）：归约本身没错，但沿错了维度。"
        "dim 指定的是被消去的那一维。",
    )


def _scaled(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    """``got`` is ``expected`` times a ratio of the input's sizes (n, 1/n, n/(n-1), n/d...)."""
    if a.shape != b.shape or a.is_complex():
        return None
    nonzero = b.abs() > 1e-6 * (1 + float(b.abs().max()))
    if int(nonzero.sum()) < 2 or not bool(torch.isfinite(a).all()):
        return None
    if bool((a[~nonzero].abs() > atol).any()):
        return None
    r = float((a[nonzero] / b[nonzero]).median())
    if not math.isfinite(r) or r == 0 or abs(r - 1) < 1e-3:
        return None
    if not _close(a, b * r, rtol, atol):
        return None
    if any(_proportional(a, x) for x in _inputs):
        return None  # the answer is a multiple of the input: a coefficient, not a count, is off
    for value, factor, where_en, where_zh in _factors(a.numel()):
        if abs(r - value) <= 1e-4 * abs(value):
            return Relation(
                "scaled_by_size",
                f"Your answer is the expected one times {factor} = {r:.6g} ({where_en}): a sum "
                "where a mean was due (or the reverse), a mean over the wrong count, or n where "
                "n - 1 was due in a variance or standard deviation.",
                f"你的结果正好是期望结果乘以 {factor} = {r:.6g}（{where_zh}）：该求均值的地方求了和"
                "（或者反过来），均值除错了个数，或者方差、标准差里的 n 与 n - 1 用错了。",
            )
    return None


def _proportional(a: torch.Tensor, x: torch.Tensor) -> bool:
    if x.shape != a.shape or x.is_complex():
        return False
    xs = x.detach().cpu().to(torch.float64)
    big = xs.abs() > 1e-6 * (1 + float(xs.abs().max()))
    if int(big.sum()) < 2:
        return False
    c = float((a[big] / xs[big]).median())
    return math.isfinite(c) and _close(a, xs * c, 1e-5, 1e-8)


def _factors(answer_size: int) -> list[tuple[float, str, str, str]]:
    """Ratios of the input's sizes a wrong reduction scales by, with what each size is.

    ``answer_size``: the number of values of the answer. An answer with fewer values than an
    input has one value per slice of it, and a slice's sum or mean never counts every element
    of the input: that count alone (n, 1/n, n/(n - 1), ...) would only be a coincidence there
    (256 pixels of a (4, 8, 8) batch, when the answer was divided by 256 for another reason).
    It still counts in a ratio with another size (x.sum(0) / x.numel() is x.mean(0) / d)."""
    sizes: dict[int, tuple[str, str]] = {}
    coincidental: set[int] = set()
    for i, x in enumerate(_inputs):
        arg, arg_zh = (
            ("the input", "输入") if len(_inputs) == 1 else (f"input {i + 1}", f"第 {i + 1} 个输入")
        )
        for d, n in enumerate(x.shape):
            if n > 1 and (n not in sizes or n in coincidental):
                sizes[int(n)] = (f"the size of dim {d} of {arg}", f"{arg_zh}第 {d} 维的长度")
                coincidental.discard(int(n))
        if x.dim() > 1 and x.numel() not in sizes:
            sizes[int(x.numel())] = (f"the number of elements of {arg}", f"{arg_zh}的元素个数")
            if answer_size < x.numel():
                coincidental.add(int(x.numel()))
    found: list[tuple[float, str, str, str]] = []
    for n, (en, zh) in sizes.items():
        if n in coincidental:
            continue
        said, said_zh = f"{n} is {en}", f"{n} 是{zh}"
        found += [
            (float(n), f"{n}", said, said_zh),
            (1 / n, f"1/{n}", said, said_zh),
            (n / (n - 1), f"{n}/{n - 1}", said, said_zh),
            ((n - 1) / n, f"{n - 1}/{n}", said, said_zh),
            (math.sqrt(n / (n - 1)), f"sqrt({n}/{n - 1})", said, said_zh),
            (math.sqrt((n - 1) / n), f"sqrt({n - 1}/{n})", said, said_zh),
        ]
    for (n, (en, zh)), (m, (en2, zh2)) in itertools.permutations(sizes.items(), 2):
        found.append((n / m, f"{n}/{m}", f"{n} is {en}, {m} {en2}", f"{n} 是{zh}，{m} 是{zh2}"))
    return [f for f in found if f[0] != 1.0]


def _shifted(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    if a.shape != b.shape:
        return None
    integral = bool((b == b.round()).all()) and bool((a == a.round()).all())
    # one or two numbers off by one may be anything; so may a constant expected answer
    if integral and b.numel() >= 3 and _distinct(b) >= 2:
        diff = a - b
        for step in (1, -1):
            if bool((diff == step).all()):
                return Relation(
                    "shifted_by_one",
                    f"Every value of your answer is the expected one {'plus' if step > 0 else 'minus'}"
                    " 1: an index counted from 1 instead of 0, or a bound off by one.",
                    f"你的结果的每个值都正好比期望值{'大' if step > 0 else '小'} 1："
                    "下标从 1 而不是从 0 开始数，或者边界差了一位。",
                )
    for dim in range(b.dim()):
        n = b.shape[dim]
        if n < 3:
            continue
        head = b.narrow(dim, 0, n - 1)
        tail = b.narrow(dim, 1, n - 1)
        if _close(head, tail, rtol, atol):
            continue  # constant along the dim: a shift says nothing
        for mine, theirs, same, later in (
            (a.narrow(dim, 1, n - 1), head, b.narrow(dim, 1, n - 1), True),
            (a.narrow(dim, 0, n - 1), tail, head, False),
        ):
            if _close(mine, theirs, rtol, atol) and _shift_explains(mine, theirs, same, rtol, atol):
                where = f"dim {dim}" if b.dim() > 1 else "the answer"
                where_zh = f"第 {dim} 维" if b.dim() > 1 else "结果"
                return Relation(
                    "shifted_by_one",
                    f"Your answer is the expected one shifted by one position along {where}: "
                    f"each value comes {'one place later' if later else 'one place earlier'} "
                    "than it should (an inclusive sum for an exclusive one, a value recorded "
                    "before or after its step, or an index off by one).",
                    f"你的结果是期望结果沿{where_zh}错开了一位：每个值都比应在的位置"
                    f"{'晚' if later else '早'}一位（把不含自身的累加写成了包含自身的累加，"
                    "在某一步之前或之后记录了数值，或者下标差了一位）。",
                )
    return None


def _distinct(t: torch.Tensor) -> int:
    return int(torch.unique(t[~torch.isnan(t)]).numel()) if t.numel() else 0


def _shift_explains(
    mine: torch.Tensor, theirs: torch.Tensor, same: torch.Tensor, rtol: float, atol: float
) -> bool:
    """Whether a shift, and nothing simpler, explains the answer: ``mine`` matches the expected
    values one place over (``theirs``): varied ones, two of them non-zero at least, and at one
    place at least a non-zero value the unshifted expected value (``same``) does not match (a
    mask's boundary moved by one). An answer that is (almost) all zeros, or one value
    everywhere, matches a mostly-zero expected answer at any offset: that is no evidence of a
    shift."""
    nonzero = theirs.abs() > atol
    if _distinct(theirs) < 2 or int(nonzero.sum()) < 2:
        return False
    unexplained = ~torch.isclose(mine, same, rtol=rtol, atol=atol, equal_nan=True)
    return bool((unexplained & nonzero).any())


def _sorted(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    """``got`` is the expected 1-D answer sorted (a sort, or torch.unique, reordered it): only
    where the expected answer is not in that order itself, and holds three distinct values at
    least (two may be swapped for any reason)."""
    if a.shape != b.shape or b.dim() != 1 or a.is_complex() or _distinct(b) < 3:
        return None
    for descending, how, how_zh in ((False, "ascending", "升序"), (True, "descending", "降序")):
        order = b.sort(descending=descending).values
        if _close(order, b, rtol, atol) or not _close(a, order, rtol, atol):
            continue
        return Relation(
            "sorted_not_in_order",
            f"Your answer holds the expected values, but sorted ({how}): the order asked for "
            "is the one they have in the input. A sort (or torch.unique, which sorts) changed "
            "it.",
            f"你的结果包含期望的数值，但经过了排序（{how_zh}）：要求的顺序是它们在输入中的顺序。"
            "是排序（或会排序的 torch.unique）改变了它。",
        )
    return None


def _column_major(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    """``got`` holds the expected 2-D answer's values in its shape, but filled column by column
    (.reshape(cols, rows).T of the row-major sequence): only where that order differs from the
    expected one and from its transpose (a square answer's column-major fill is its transpose,
    which _transposed names), and the answer holds three distinct values at least."""
    if a.dim() != 2 or a.shape != b.shape or min(b.shape) < 2 or a.shape[0] == a.shape[1]:
        return None
    if _distinct(b) < 3:
        return None
    rows, cols = b.shape
    filled = b.reshape(-1).reshape(cols, rows).t()
    if _close(filled, b, rtol, atol) or not _close(a, filled, rtol, atol):
        return None
    return Relation(
        "filled_column_major",
        f"Your answer holds the expected values in the expected shape, but filled column by "
        f"column: reading yours down the columns gives the expected values row by row. reshape "
        f"and view fill row by row (the last index moves fastest); .reshape({cols}, {rows}).T "
        f"(or .t()) fills by columns. Reshape to ({rows}, {cols}) directly.",
        f"你的结果包含期望的数值、形状也对，但是按列填充的：沿列读你的结果，得到的正是按行排列的期望值。"
        f"reshape 和 view 按行填充（最后一个下标变化最快）；.reshape({cols}, {rows}).T（或 .t()）"
        f"则按列填充。请直接 reshape 成 ({rows}, {cols})。",
    )


def _deduplicated(a: torch.Tensor, b: torch.Tensor, rtol: float, atol: float) -> Relation | None:
    """``got`` holds each distinct value of the expected 1-D answer exactly once, in any order
    (torch.unique, set()), where the expected answer repeats some: nothing else gives every
    distinct value once and drops only repeats. Exact values only (no tolerance: two values
    within it would be one and not one)."""
    if a.dim() != 1 or b.dim() != 1 or a.is_complex() or b.is_complex():
        return None
    if bool(torch.isnan(a).any()) or bool(torch.isnan(b).any()):
        return None
    distinct = torch.unique(b)
    if distinct.numel() == b.numel() or a.numel() != distinct.numel():
        return None
    if not torch.equal(a.sort().values, distinct):
        return None
    n, k = b.numel(), distinct.numel()
    ordered = torch.equal(a, distinct) and not torch.equal(b, b.sort().values)
    sorts_en, sorts_zh = (", and sorts them", "，并且会排序") if ordered else ("", "")
    return Relation(
        "duplicates_dropped",
        f"Your answer holds each of the {k} distinct expected values once, but the expected "
        f"answer has {n} values: some repeat, and every repeat was dropped. torch.unique "
        f"(like set()) keeps one of each value{sorts_en}.",
        f"你的结果中 {k} 个不同的期望值各出现一次，但期望结果有 {n} 个值：有些值是重复的，"
        f"而所有重复都被去掉了。torch.unique（和 set() 一样）每个值只保留一个{sorts_zh}。",
    )


_FINDERS: tuple[Callable[[torch.Tensor, torch.Tensor, float, float], Relation | None], ...] = (
    _transposed,
    _diagonal,
    _all_pairs,
    _reduced,
    _size_one,
    _shifted,
    _scaled,
    _sorted,
    _deduplicated,
    _column_major,
)


def first_non_finite(values: torch.Tensor, expected: torch.Tensor | None = None) -> str | None:
    """Where the first NaN or inf appears (row-major) that the expected answer does not
    have: ``"NaN at index [2, 0]"``; None when there is none."""
    if values.device.type == "meta" or not values.dtype.is_floating_point:
        return None
    v = values.detach().cpu()
    bad = ~torch.isfinite(v)
    if expected is not None and expected.shape == v.shape and expected.device.type != "meta":
        e = expected.detach().cpu()
        if e.dtype.is_floating_point:
            bad &= torch.isfinite(e)
    if not bool(bad.any()):
        return None
    index = tuple(int(i) for i in bad.nonzero()[0]) if v.dim() else ()
    kind = "NaN" if bool(torch.isnan(v[index])) else "inf"
    where = "[" + ", ".join(map(str, index)) + "]"
    return f"{kind} at index {where}" if index else kind


_SIZES_CLASH = re.compile(
    r"size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at non-singleton "
    r"dimension (\d+)"
)


def paired_rows(message: str) -> Relation | None:
    """A broadcast error between the item counts of two inputs (their dim 0, e.g. 5 boxes
    against 3): the code combined item i of one input with item i of the other, where every
    item should meet every other one. Only when the two sizes are exactly the two inputs'
    first dims, and differ."""
    sizes, leading = _clashing_sizes(message[:2000])
    firsts = [shape[0] for shape in _shapes if len(shape) >= 2]
    if len(sizes) != 2 or len(firsts) != 2 or set(firsts) != sizes or not leading:
        # not at the leading dim: both sides are already pairwise, the pairing axes swapped
        # ((m, n) against (n, m)); item i with item i is not what happened
        return None
    n, m = firsts
    return Relation(
        "answer_diagonal",
        f"The sizes that clash, {n} and {m}, are the numbers of items of your two inputs: your "
        "code combined item i of one with item i of the other. Every item of the first must "
        f"meet every item of the second, giving ({n}, {m}): index the first with [:, None] and "
        "the second with [None, :].",
        f"冲突的两个长度 {n} 和 {m} 正是你的两个输入的项数：你的代码把一个输入的第 i 项与另一个输入的"
        f"第 i 项配对了。第一个输入的每一项都要与第二个输入的每一项配对，得到 ({n}, {m})："
        "对第一个输入用 [:, None]，对第二个用 [None, :]。",
    )


_META_CLASH = re.compile(
    r"Attempting to broadcast a dimension of length (\d+) at (-\d+)!.*broadcastable to \[([\d, ]+)\]"
)


def _clashing_sizes(message: str) -> tuple[set[int], bool]:
    """The two sizes a broadcast error names, in the CPU/CUDA wording or the meta device's,
    and whether they clash at the leading dim (where two lists of items meet item by item)."""
    found = _SIZES_CLASH.search(message)
    if found is not None:
        return {int(found.group(1)), int(found.group(2))}, found.group(3) == "0"
    meta = _META_CLASH.search(message)
    if meta is not None:
        target = [int(d) for d in meta.group(3).split(",") if d.strip()]
        at = int(meta.group(2))
        if -len(target) <= at < 0:
            return {int(meta.group(1)), target[at]}, at == -len(target)
    return set(), False


def reduced_shape(got: torch.Tensor, shape: Sequence[int]) -> Relation | None:
    """A wrong shape whose values are a reduction of the input over one dim, where the shape
    asked for is the same reduction over another dim (or with keepdim the other way)."""
    want = tuple(int(d) for d in shape)
    if got.device.type == "meta" or tuple(got.shape) == want or not got.numel():
        return None
    if got.numel() > _MAX_INPUT_ELEMENTS or got.is_complex():
        return None
    a = _plain(got)
    if a.numel() < 2 or bool((a == a.flatten()[0]).all()):
        return None  # one value, or the same everywhere: too little to name a reduction
    for x in _inputs:
        if not (x.dtype.is_floating_point and 1 <= x.dim() <= 4):
            continue
        xs = x.detach().cpu().to(torch.float64)
        if _a_slice_of(xs, a):
            continue  # a row of the input is also a selection: a reduction is one guess of two
        for name, op in _REDUCTIONS:
            keeps = (False,) if name in _NO_KEEPDIM else (False, True)
            # over a dim of size 1 a reduction changes nothing: it names no dim
            options = [(d, k) for d in range(xs.dim()) if xs.shape[d] > 1 for k in keeps]
            wanted = [(d, k) for d, k in options if _shape_of(op, xs, d, k) == want]
            if not wanted:
                continue
            for d, k in options:
                if (d, k) in wanted or not _matches(op, xs, d, k, a, 1e-4, 1e-5):
                    continue
                wd, wk = wanted[0]
                return _reduction_relation(name, d, k, wd, wk)
    return None


def _shape_of(op: Callable[..., torch.Tensor], x: torch.Tensor, d: int, k: bool) -> tuple[int, ...]:
    try:
        return tuple(op(x, d, k).shape)
    except RuntimeError:
        return ()
