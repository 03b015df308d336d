"""Assertion helpers for hidden tests: every failure says what was expected and what came back.

A failing check raises :class:`CheckFailed` with a learner-facing message in English and Chinese
(shape, dtype and device of "yours vs expected", the first differing element, the largest error),
and *evidence*: short tags such as ``broadcast_shape`` or ``shares_memory`` that the diagnosis
catalogue matches to a misconception. Messages never show the test's code.

Comparisons use ``torch.isclose`` and metadata checks, not ``torch.testing.assert_close`` (whose
first call imports some 500 modules, see PERFORMANCE.md).
"""

from __future__ import annotations

import builtins
import math
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, NoReturn

import numpy as np
import torch

from grader.notebooks import line_en, line_zh
from grader.sandbox.codec import ModuleValue, Opaque, array_info, tensor_info
from grader.spec import Text
from grader.testing import measured, relations

if TYPE_CHECKING:
    from grader.sandbox.faults import LearnerRaised


class CheckFailed(AssertionError):
    """A hidden test's check failed; carries the learner-facing message and evidence."""

    def __init__(self, message: Text, *, evidence: Sequence[str] = (), data: dict | None = None):
        super().__init__(message.en)
        self.message = message
        self.evidence = tuple(evidence)
        self.data = data or {}


def sole_story(fitting: Iterable[tuple[Any, ...]]) -> tuple[Any, ...] | None:
    """The one story of a table of classic mistakes that a wrong answer fits: ``fitting``
    holds each story the answer is, value for value (its English text at index ``-2``, its
    Chinese at ``-1``). Where the answer fits two stories that say different things (rows of
    +-1000 underflow to the same 0s and NaNs whether the whole tensor's or each column's
    maximum was subtracted), the answer tells neither apart: None, and neither is told."""
    found = list(fitting)
    return found[0] if len({story[-2] for story in found}) == 1 else None


def names(what: str | Text) -> tuple[str, str]:
    """A value's name in each language: checks take a plain string (the same in both, e.g.
    code such as `pairwise_distance(x)`) or a Text with an English and a Chinese name."""
    if isinstance(what, Text):
        return what.en, what.zh
    return str(what), str(what)


_what_names = names  # for checks whose own parameter is called `names`


def fail(en: str, zh: str, *, evidence: Sequence[str] = (), data: dict | None = None) -> NoReturn:
    raise CheckFailed(Text(en, zh), evidence=evidence, data=data)


def assert_unchanged(before: Any, after: Any, what: str | Text) -> None:
    """``after`` (an input as it came back) equals ``before`` (as it was sent): values, dtype,
    shape, device, ``requires_grad`` and ``.grad``. For checks inside scenarios; plain
    ``learner.fn(...)`` calls check their inputs by themselves."""
    from grader.testing.mutation import input_change

    we, wz = names(what)
    problem = input_change(before, after)
    if problem:
        en, zh, evidence = problem
        fail(
            f"{we} was changed: {en}", f"{wz} 被修改了：{zh}", evidence=["input_mutated", evidence]
        )


SKIP_PREFIX = "grader-text:"


def skip_reason(en: str, zh: str) -> str:
    """A pytest skip reason that carries both languages (the grader's plugin decodes it)."""
    import json

    return SKIP_PREFIX + json.dumps({"en": en, "zh": zh}, ensure_ascii=False)


def skip(en: str, zh: str) -> NoReturn:
    """Skip this test instance with a reason in both languages (e.g. a meta-device case that
    cannot apply to a correct solution which reads values)."""
    import pytest

    pytest.skip(skip_reason(en, zh))


def check(condition: bool, en: str, zh: str, *, evidence: Sequence[str] = ()) -> None:
    """Fail with this message unless ``condition`` holds."""
    if not condition:
        fail(en, zh, evidence=evidence)


# ---------------------------------------------------------------------------------------------
# Describing values


def _dtype(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def _shape(shape: Iterable[int]) -> str:
    dims = tuple(int(d) for d in shape)
    return "(" + ", ".join(map(str, dims)) + ("," if len(dims) == 1 else "") + ")"


def device_of(value: torch.Tensor) -> str:
    """The device the learner's tensor was on (as reported by the learner's side)."""
    info = tensor_info(value)
    return info.device if info is not None else str(value.device)


def describe(value: Any) -> str:
    """A short description of any value, for "yours vs expected"."""
    if isinstance(value, torch.Tensor):
        return f"a tensor of shape {_shape(value.shape)}, dtype {_dtype(value.dtype)}, on {device_of(value)}"
    if isinstance(value, np.ndarray):
        return f"a NumPy array of shape {_shape(value.shape)}, dtype {value.dtype}"
    if isinstance(value, Opaque):
        return f"a {value.type_name} ({value.repr})"
    if isinstance(value, ModuleValue):
        return f"a {value.class_name} module"
    if value is None:
        return "None"
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__} {text}"


def describe_zh(value: Any) -> str:
    """:func:`describe` in Chinese (for the ``zh`` text of a message)."""
    if isinstance(value, torch.Tensor):
        return f"形状为 {_shape(value.shape)}、dtype 为 {_dtype(value.dtype)}、位于 {device_of(value)} 的张量"
    if isinstance(value, np.ndarray):
        return f"形状为 {_shape(value.shape)}、dtype 为 {value.dtype} 的 NumPy 数组"
    if isinstance(value, Opaque):
        return f"{value.type_name} 对象（{value.repr}）"
    if isinstance(value, ModuleValue):
        return f"{value.class_name} 模块"
    if value is None:
        return "None"
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{type(value).__name__} 类型的值 {text}"


def view_difference(got: torch.Tensor, fresh: torch.Tensor) -> tuple[str, str]:
    """How the answer for a view differs from the answer for its contiguous copy, in English
    and Chinese: the shape or dtype, else the first differing element (NaN equals NaN). For
    the layout tests that compare a learner with itself on a view and on ``.contiguous()``."""
    a, b = got.detach().cpu(), fresh.detach().cpu()
    if a.shape != b.shape or a.dtype != b.dtype:
        return (
            f"{describe(got)} instead of {describe(fresh)}",
            f"得到的是 {describe_zh(got)}，而不是 {describe_zh(fresh)}",
        )
    differ = a != b
    if a.dtype.is_floating_point:
        differ &= ~(a.isnan() & b.isnan())
    if not bool(differ.any()):
        return describe(got), describe_zh(got)
    index = tuple(int(i) for i in differ.nonzero()[0]) if a.dim() else ()
    where = "[" + ", ".join(map(str, index)) + "]"
    yours, copy = a[index].item(), b[index].item()
    return (
        f"at index {where} it gives {yours:.6g} for the view, {copy:.6g} for the copy",
        f"在下标 {where} 处，对视图的结果是 {yours:.6g}，对副本的结果是 {copy:.6g}",
    )


def paired_heads(theirs: torch.Tensor, ours: torch.Tensor, n: int = 4) -> tuple[str, str]:
    """The same ``n`` entries of two answers (flattened), for a message that sets them side by
    side: the first ``n``, or, where those read alike, from the entry before the first one
    that reads differently ("..., 0.25098, 0.501961, ..."). Two heads that read alike would
    tell the learner nothing: "yours (0, 0.00392157, ...), expected (0, 0.00392157, ...)"."""
    a = theirs.detach().reshape(-1).cpu()
    b = ours.detach().reshape(-1).cpu()
    start = 0
    common = min(a.numel(), b.numel())
    if common > n:
        unequal = (a[:common] != b[:common]).nonzero().reshape(-1).tolist()
        first = next((i for i in unequal if _entry(a[i]) != _entry(b[i])), None)
        if first is not None and first >= n:
            start = first - 1
    return _window(a, start, n), _window(b, start, n)


def _window(flat: torch.Tensor, start: int, n: int) -> str:
    shown = ", ".join(_entry(v) for v in flat[start : start + n])
    return ("..., " if start else "") + shown + (", ..." if flat.numel() > start + n else "")


def _entry(value: torch.Tensor) -> str:
    item = value.item()
    return f"{item:.6g}" if isinstance(item, float) else str(item)


def _element(value: torch.Tensor) -> str:
    item = value.item()
    if isinstance(item, float):
        return f"{item:.6g}"
    return repr(item)


def _elements(yours: torch.Tensor, want: torch.Tensor) -> tuple[str, str]:
    """Two differing elements, written with as many significant digits as it takes to tell
    them apart (6 where that is enough): "yours is 1.3355, expected 1.3355" says nothing."""
    a, b = yours.item(), want.item()
    if not (isinstance(a, float) and isinstance(b, float)) or a == b:
        return _element(yours), _element(want)
    for digits in range(6, 18):
        left, right = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if left != right:
            return left, right
    return repr(a), repr(b)


# ---------------------------------------------------------------------------------------------
# Types and metadata


def expect_tensor(value: Any, what: str | Text) -> torch.Tensor:
    """``value`` must be exactly a ``torch.Tensor``; returns it."""
    we, wz = names(what)
    if type(value) is torch.Tensor:
        return value
    evidence = ["not_a_tensor"]
    if isinstance(value, np.ndarray):
        evidence.append("numpy_instead_of_tensor")
    if isinstance(value, Opaque) and "subclass" in value.repr + value.type_name:
        evidence.append("tensor_subclass")
    none_en, none_zh = _none_returned(value, evidence)
    if not none_en:
        none_en, none_zh = _method_returned(value, evidence)
    fail(
        f"{we} should be a torch.Tensor, but yours is {describe(value)}.{none_en}",
        f"{wz} 应该是 torch.Tensor，但你的结果是 {describe_zh(value)}。{none_zh}",
        evidence=evidence,
    )


_METHOD_TYPES = frozenset({"builtin_function_or_method", "method", "method-wrapper"})
_METHOD_NAME = re.compile(r"<(?:built-in|bound) method (?:[\w.]+\.)?(\w+) of ")


def _method_returned(value: Any, evidence: list[str]) -> tuple[str, str]:
    """A bound method where its result was due: ``return t.float`` without the parentheses.
    Adds the evidence tag and gives the sentence that says so (empty for any other value)."""
    if not (isinstance(value, Opaque) and value.type_name in _METHOD_TYPES):
        return "", ""
    evidence.append("method_not_called")
    found = _METHOD_NAME.match(value.repr)
    if found is None:
        return (
            " That is a method itself, not its result: call it, with parentheses.",
            "这是方法本身，而不是它的结果：需要加上括号调用它。",
        )
    name = found.group(1)
    return (
        f" That is the method {name} itself, not its result: call it, with parentheses "
        f"(.{name}(...)).",
        f"这是方法 {name} 本身，而不是它的结果：需要加上括号调用它（.{name}(...)）。",
    )


def _none_returned(value: Any, evidence: list[str]) -> tuple[str, str]:
    """None where a value was due: what a function gives that ends without ``return``. Adds
    the evidence tag and gives the sentence that says so (empty for any other value)."""
    if value is not None:
        return "", ""
    evidence.append("returned_none")
    return (
        " A function that ends without a return statement gives None: return the result you "
        "computed.",
        "没有 return 语句就结束的函数会返回 None：请把算出的结果 return 回去。",
    )


def expect_array(value: Any, what: str | Text) -> np.ndarray:
    we, wz = names(what)
    if isinstance(value, np.ndarray):
        return value
    evidence = ["not_an_array"]
    none_en, none_zh = _none_returned(value, evidence)
    if not none_en:
        none_en, none_zh = _method_returned(value, evidence)
    if not none_en:
        none_en, none_zh = _array_due(value)
    fail(
        f"{we} should be a NumPy array (numpy.ndarray), but yours is {describe(value)}.{none_en}",
        f"{wz} 应该是 NumPy 数组（numpy.ndarray），但你的结果是 {describe_zh(value)}。{none_zh}",
        evidence=evidence,
    )


def _array_due(value: Any) -> tuple[str, str]:
    """What turned a tensor into something other than the array due, where its type says so:
    a tensor (``.numpy()`` never called), a list (``.tolist()``), a Python number
    (``.item()``). Empty for anything else."""
    if isinstance(value, torch.Tensor):
        return (
            " A tensor is not a NumPy array: .numpy() makes one (after .detach().cpu()).",
            "张量不是 NumPy 数组：需要用 .numpy() 转换（在 .detach().cpu() 之后）。",
        )
    if isinstance(value, (list, tuple)):
        return (
            " .tolist() (or a list built by hand) gives Python lists, not an array: .numpy() "
            "gives the array, with the tensor's dtype.",
            ".tolist()（或手动构造的列表）得到的是 Python 列表，而不是数组：.numpy() 才会得到"
            "数组，并且保持张量的 dtype。",
        )
    if isinstance(value, (bool, int, float)):
        return (
            " .item() gives one Python number, not an array: .numpy() gives the array, whatever "
            "its shape.",
            ".item() 得到的是一个 Python 数字，而不是数组：.numpy() 才会得到数组，无论形状如何。",
        )
    return "", ""


def assert_type(value: Any, kind: type | tuple[type, ...], what: str | Text) -> None:
    we, wz = names(what)
    if isinstance(value, kind) and not (isinstance(value, bool) and bool not in _tuple(kind)):
        return
    kinds = " or ".join(k.__name__ for k in _tuple(kind))
    evidence = ["wrong_type"]
    none_en, none_zh = _none_returned(value, evidence)
    if not none_en:
        none_en, none_zh = _method_returned(value, evidence)
    fail(
        f"{we} should be a {kinds}, but yours is {describe(value)}.{none_en}",
        f"{wz} 应该是 {kinds}，但你的结果是 {describe_zh(value)}。{none_zh}",
        evidence=evidence,
    )


def _tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def assert_shape(value: torch.Tensor, shape: Sequence[int], what: str | Text) -> None:
    we, wz = names(what)
    got = tuple(value.shape)
    want = tuple(int(d) for d in shape)
    if got == want:
        return
    evidence = ["wrong_shape"] + _shape_evidence(got, want)
    relation = relations.reduced_shape(value, want)
    more_en, more_zh = (f" {relation.en}", relation.zh) if relation is not None else ("", "")
    if relation is not None:
        evidence.append(relation.tag)
    elif "size_one_dims" in evidence:
        story = relations.size_one_story(got, want)
        if story is not None:
            more_en, more_zh = f" It has {story[0]}", f"你的结果{story[1]}"
    fail(
        f"{we} should have shape {_shape(want)}, but yours has shape {_shape(got)}.{more_en}",
        f"{wz} 的形状应为 {_shape(want)}，但你的结果形状为 {_shape(got)}。{more_zh}",
        evidence=evidence,
        data={"yours": list(got), "expected": list(want)},
    )


def assert_shape_of(value: torch.Tensor, expected: torch.Tensor, what: str | Text) -> None:
    """``value`` has ``expected``'s shape; a wrong shape that is a relation of the expected
    answer (its values every pair over, a size-1 dim dropped ...) says so, as assert_close."""
    with _related(value, expected, None, None):
        assert_shape(value, expected.shape, what)


def _shape_evidence(got: tuple[int, ...], want: tuple[int, ...]) -> list[str]:
    """Tags that explain a wrong shape: a silent broadcast, a lost or extra size-1 dim."""
    tags = []
    if len(got) == len(want) + 1 and len(want) >= 1 and got[-1] == got[-2] == want[-1]:
        tags.append("broadcast_shape")  # (n,) - (n, 1) -> (n, n)
    elif len(got) == 2 and len(want) == 2 and got[0] == got[1] == want[0] and want[1] == 1:
        tags.append("broadcast_shape")
    if (
        [d for d in got if d != 1] == [d for d in want if d != 1]
        and got != want
        and any(d != 1 for d in want)  # a single value fits every shape: says nothing
    ):
        tags.append("size_one_dims")
    if sorted(got) == sorted(want) and got != want:
        tags.append("dims_permuted")
    return tags


def assert_dtype(value: torch.Tensor, dtype: torch.dtype, what: str | Text) -> None:
    we, wz = names(what)
    if value.dtype == dtype:
        return
    evidence = ["wrong_dtype"]
    booleans = torch.bool in (dtype, value.dtype)
    if booleans:
        evidence.append("bool_dtype_mismatch")
    elif dtype.is_floating_point and not value.dtype.is_floating_point:
        evidence.append("integer_instead_of_float")
    elif not dtype.is_floating_point and value.dtype.is_floating_point:
        evidence.append("float_instead_of_integer")
    if dtype == torch.float32 and value.dtype == torch.float64:
        evidence.append("float64_from_numpy")
    fail(
        f"{we} should have dtype {_dtype(dtype)}, but yours has dtype {_dtype(value.dtype)}.",
        f"{wz} 的 dtype 应为 {_dtype(dtype)}，但你的结果是 {_dtype(value.dtype)}。",
        evidence=evidence,
    )


def assert_device(value: torch.Tensor, device: str | torch.device, what: str | Text) -> None:
    we, wz = names(what)
    got = torch.device(device_of(value))
    want = torch.device(device)
    same = got.type == want.type and (want.index is None or got.index in (None, want.index))
    if same:
        return
    fail(
        f"{we} should be on {want}, but yours is on {got}. Create tensors on the device of the "
        "inputs (e.g. device=x.device, or torch.zeros_like(x)).",
        f"{wz} 应该位于 {want}，但你的结果位于 {got}。请在输入所在的设备上创建张量"
        "（例如 device=x.device，或 torch.zeros_like(x)）。",
        evidence=["wrong_device"],
    )


def assert_requires_grad(value: torch.Tensor, expected: bool, what: str | Text) -> None:
    we, wz = names(what)
    info = tensor_info(value)
    got = info.requires_grad if info is not None else value.requires_grad
    if got == expected:
        return
    if expected:
        fail(
            f"{we} should require grad (be part of the autograd graph), but yours does not.",
            f"{wz} 应该需要梯度（属于计算图），但你的结果不需要梯度。",
            evidence=["graph_broken"],
        )
    grad_fn = info.grad_fn if info is not None else None
    fail(
        f"{we} should not require grad, but yours does"
        + (f" (grad_fn={grad_fn})" if grad_fn else "")
        + ". Compute it without recording the graph, under torch.no_grad().",
        f"{wz} 不应该需要梯度，但你的结果需要梯度"
        + (f"（grad_fn={grad_fn}）" if grad_fn else "")
        + "。请在 torch.no_grad() 下计算，不要记录计算图。",
        evidence=["requires_grad_output"],
    )


# ---------------------------------------------------------------------------------------------
# Values


def default_tolerance(dtype: torch.dtype) -> tuple[float, float]:
    """(rtol, atol) that accept a different but valid formula in this dtype."""
    if dtype in (torch.float16, torch.bfloat16):
        return 1e-2, 1e-2
    if dtype in (torch.float64, torch.complex128):
        return 1e-7, 1e-9
    return 1e-5, 1e-5


def tolerance_words(rtol: float, atol: float) -> tuple[str, str]:
    """How close a value must be, in plain words (English, Chinese): what ``torch.isclose``
    accepts, |yours - expected| <= atol + rtol * |expected|, said without the formula."""
    percent = f"{100 * rtol:.3g}%"
    if rtol <= 0 and atol <= 0:
        return "each value must match exactly", "每个值都必须完全相等"
    if rtol <= 0:
        return (
            f"each value must be within {atol:g} of the expected value",
            f"每个值与期望值之差不能超过 {atol:g}",
        )
    if atol <= 0:
        return (
            f"each value must be within {percent} of the expected value",
            f"每个值与期望值之差不能超过期望值的 {percent}",
        )
    return (
        f"each value must be within {atol:g} of the expected value, plus {percent} of it",
        f"每个值与期望值之差不能超过 {atol:g} 加上期望值的 {percent}",
    )


def assert_close(
    got: Any,
    expected: torch.Tensor,
    what: str | Text,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_dtype: bool = True,
    check_device: bool = True,
) -> None:
    """``got`` is a tensor of ``expected``'s shape, dtype and device with close values."""
    got = expect_tensor(got, what)
    with _related(got, expected, rtol, atol):
        assert_shape(got, expected.shape, what)
    with _values_right(got, expected):
        if check_dtype:
            assert_dtype(got, expected.dtype, what)
        if check_device:
            assert_device(got, expected.device, what)
    if got.device.type == "meta" or expected.device.type == "meta":
        return
    a = got.detach().cpu()
    b = expected.detach().cpu()
    if a.dtype != b.dtype:
        common = torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(common), b.to(common)
    if a.dtype == torch.bool or not (a.dtype.is_floating_point or a.dtype.is_complex):
        _report_mismatch(what, a, b, a != b, exact=True)
        return
    default_rtol, default_atol = default_tolerance(expected.dtype)
    rtol = default_rtol if rtol is None else rtol
    atol = default_atol if atol is None else atol
    ok = torch.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    _report_mismatch(what, a, b, ~ok, exact=False, rtol=rtol, atol=atol, held_in=got.dtype)


def assert_equal(
    got: Any, expected: torch.Tensor, what: str | Text, *, check_dtype: bool = True
) -> None:
    """Exact equality (integers, booleans, indices); NaN equals NaN."""
    got = expect_tensor(got, what)
    with _related(got, expected, 0.0, 0.0):
        assert_shape(got, expected.shape, what)
    with _values_right(got, expected):
        if check_dtype:
            assert_dtype(got, expected.dtype, what)
        assert_device(got, expected.device, what)
    if got.device.type == "meta":
        return
    a, b = got.detach().cpu(), expected.detach().cpu()
    if a.dtype != b.dtype:
        common = torch.promote_types(a.dtype, b.dtype)
        a, b = a.to(common), b.to(common)
    differ = a != b
    if a.dtype.is_floating_point:
        differ &= ~(torch.isnan(a) & torch.isnan(b))
    _report_mismatch(what, a, b, differ, exact=True)


@contextmanager
def _related(
    got: torch.Tensor, expected: torch.Tensor, rtol: float | None, atol: float | None
) -> Iterator[None]:
    """A wrong shape that is a relation of the expected answer (transposed, its diagonal, a
    size-1 dim kept or dropped, another dim reduced) says so and adds the relation's tag."""
    try:
        yield
    except CheckFailed as exc:
        relation = None
        if isinstance(expected, torch.Tensor):
            relation = relations.relate(got, expected, rtol=rtol or 0.0, atol=atol or 0.0)
        if relation is None or relation.en in exc.message.en:
            raise  # none, or already said (assert_shape names a reduction itself)
        if relation.tag == "size_one_dims" and relation.tag in exc.evidence:
            # assert_shape named the size-1 dim already: only the values are news
            raise _extended(
                exc, "Your values are right.", "你的数值是对的。", relation.tag
            ) from None
        raise _extended(exc, relation.en, relation.zh, relation.tag) from None


@contextmanager
def _values_right(got: torch.Tensor, expected: torch.Tensor) -> Iterator[None]:
    """A wrong dtype or device with the right values says that only that is wrong."""
    try:
        yield
    except CheckFailed as exc:
        if not (isinstance(expected, torch.Tensor) and relations.same_values(got, expected)):
            raise
        raise _extended(
            exc,
            "Your values are right; only this is wrong.",
            "你的数值是对的，错的只有这一点。",
            "",
        ) from None


def _extended(exc: CheckFailed, en: str, zh: str, tag: str) -> CheckFailed:
    evidence = exc.evidence + ((tag,) if tag and tag not in exc.evidence else ())
    return CheckFailed(
        Text(f"{exc.message.en} {en}", f"{exc.message.zh}{zh}"), evidence=evidence, data=exc.data
    )


def _report_mismatch(
    what: str | Text,
    a: torch.Tensor,
    b: torch.Tensor,
    bad: torch.Tensor,
    *,
    exact: bool,
    rtol: float = 0.0,
    atol: float = 0.0,
    held_in: torch.dtype | None = None,
) -> None:
    """``held_in``: the dtype the learner's tensor had before ``a`` was promoted to compare."""
    we, wz = names(what)
    if not bool(bad.any()):
        return
    count = int(bad.sum())
    index = tuple(int(i) for i in bad.nonzero()[0]) if bad.dim() else ()
    yours, want = a[index], b[index]
    where = "[" + ", ".join(map(str, index)) + "]" if index else ""
    evidence = ["values_differ"]
    overflow = _overflowed(a, b, held_in) if a.dtype.is_floating_point else None
    if a.dtype.is_floating_point:
        if bool((torch.isnan(a) & ~torch.isnan(b)).any()):
            evidence.append("nan_in_output")
        if overflow is not None:
            evidence.append("wrong_dtype")
        elif bool((torch.isinf(a) & ~torch.isinf(b)).any()):
            evidence.append("inf_in_output")
    extra_en = extra_zh = ""
    non_finite = relations.first_non_finite(a, b)
    if non_finite is not None:
        extra_en += f" The first {non_finite.replace(' at index ', ' is at index ')}."
        extra_zh += f"第一个{non_finite.replace(' at index ', ' 位于下标 ')}。"
    if not exact and a.dtype.is_floating_point:
        finite = torch.isfinite(a) & torch.isfinite(b)
        if bool(finite.any()):
            err = float((a - b).abs()[finite].max())
            rule_en, rule_zh = tolerance_words(rtol, atol)
            extra_en += f" The largest difference is {err:.3g}; {rule_en}."
            extra_zh += f"最大误差为 {err:.3g}；{rule_zh}。"
    if overflow is not None:
        extra_en += f" {overflow.en}"
        extra_zh += overflow.zh
    at_en = f" First at index {where}:" if where else ""
    at_zh = f"第一个位于下标 {where}：" if where else ""
    relation = relations.relate(a, b, rtol=rtol, atol=atol)
    if relation is not None:
        extra_en += f" {relation.en}"
        extra_zh += relation.zh
        if relation.tag:
            evidence.append(relation.tag)
    shown_yours, shown_want = _elements(yours, want)
    fail(
        f"{we}: {count} of {a.numel()} values differ from the expected result.{at_en} yours is "
        f"{shown_yours}, expected {shown_want}.{extra_en}",
        f"{wz}：{a.numel()} 个值中有 {count} 个与期望结果不同。{at_zh}你的结果是 "
        f"{shown_yours}，期望 {shown_want}。{extra_zh}",
        evidence=evidence,
        data={
            "index": list(index),
            "yours": _element(yours),
            "expected": _element(want),
            "count": count,
        },
    )


def _overflowed(a: torch.Tensor, b: torch.Tensor, held_in: torch.dtype | None) -> Text | None:
    """Every inf of the learner's values is a finite expected value too large for the narrower
    float dtype the learner's tensor was held in (1e6 in float16): the dtype overflowed, no
    computation made an inf. Then that is what to say, not the NaN-or-inf story."""
    if held_in is None or not held_in.is_floating_point or held_in == a.dtype:
        return None
    limit = torch.finfo(held_in).max
    if limit >= torch.finfo(b.dtype).max:
        return None
    new_inf = torch.isinf(a) & torch.isfinite(b)
    if not bool(new_inf.any()) or bool((torch.isnan(a) & ~torch.isnan(b)).any()):
        return None
    if not bool((b[new_inf].abs() > limit).all()):
        return None
    name = str(held_in).removeprefix("torch.")
    big = _element(b[new_inf][0])
    return Text(
        f"Yours is {name}, which holds numbers up to {limit:g} only: {big} becomes inf in it. "
        "Keep the dtype asked for.",
        f"你的结果是 {name}，它最大只能表示 {limit:g}：{big} 在其中变成了 inf。请保持题目要求的 dtype。",
    )


def assert_value(
    got: Any, expected: Any, what: str | Text, *, rel: float = 1e-6, abs_: float = 1e-9
) -> None:
    """Plain Python values: numbers within tolerance, everything else by ==."""
    we, wz = names(what)
    if isinstance(expected, float) and isinstance(got, (int, float)) and not isinstance(got, bool):
        if math.isclose(float(got), expected, rel_tol=rel, abs_tol=abs_) or (
            math.isnan(expected) and math.isnan(got)
        ):
            return
    elif type(got) is type(expected) and got == expected:
        return
    fail(
        f"{we} should be {expected!r}, but yours is {describe(got)}.",
        f"{wz} 应为 {expected!r}，但你的结果是 {describe_zh(got)}。",
        evidence=["values_differ"] + (["wrong_type"] if type(got) is not type(expected) else []),
    )


def assert_finite(got: torch.Tensor, what: str | Text) -> None:
    we, wz = names(what)
    got = expect_tensor(got, what)
    if got.device.type == "meta" or not got.dtype.is_floating_point:
        return
    values = got.detach().cpu()
    if bool(torch.isfinite(values).all()):
        return
    nan = bool(torch.isnan(values).any())
    fail(
        f"{we} contains {'NaN' if nan else 'inf'} values; every value should be finite.",
        f"{wz} 中含有 {'NaN' if nan else 'inf'}；所有值都应是有限数。",
        evidence=["nan_in_output" if nan else "inf_in_output"],
    )


# ---------------------------------------------------------------------------------------------
# Memory: views and copies


def shares(value: Any) -> tuple[str, ...]:
    """The inputs of the call whose memory ``value`` overlaps (as the learner's side saw it:
    a measurement its code could alter, so it is noted as one, see grader.testing.measured)."""
    measured.note("memory sharing")
    if isinstance(value, torch.Tensor):
        info = tensor_info(value)
        return info.shares if info is not None else ()
    if isinstance(value, np.ndarray):
        info_a = array_info(value)
        return info_a.shares if info_a is not None else ()
    return ()


def assert_independent(value: Any, what: str | Text) -> None:
    """``value`` shares no memory with the call's inputs: writing into it changes nothing else."""
    we, wz = names(what)
    common = shares(value)  # noted as measured in the learner's process (grader.testing.measured)
    if not common:
        return
    fail(
        f"{we} shares memory with the input ({', '.join(common)}): writing into it would change "
        "the input too. Return an independent copy, e.g. with .clone().",
        f"{wz} 与输入（{', '.join(common)}）共享内存：修改它也会修改输入。"
        "请返回独立的副本，例如使用 .clone()。",
        evidence=["shares_memory"],
    )


def assert_shares(value: Any, what: str | Text, input_path: str = "args[0]") -> None:
    """``value`` is a view of the given input (no copy was made)."""
    we, wz = names(what)
    if input_path in shares(value):
        return
    fail(
        f"{we} should be a view of the input (sharing its memory), but yours is a copy.",
        f"{wz} 应该是输入的视图（共享内存），但你的结果是一份副本。",
        evidence=["copy_instead_of_view"],
    )


# ---------------------------------------------------------------------------------------------
# What the learner's code did while it ran, and what its source shows


def assert_op_growth(
    records: Mapping[str, Any],
    sizes: Mapping[str, Mapping[str, int]] | None,
    what: str | Text,
    *,
    growth: str | Mapping[str, str] = "constant",
) -> None:
    """The tensor operations of traced calls grow with the input sizes no faster than
    ``growth`` allows.

    ``records`` maps a label to the record of a call made with ``trace=True``
    (``{"n=4, d=3": rec, "n=64, d=3": rec, "n=4, d=48": rec}``); ``sizes`` gives each label's
    numeric sizes (``{"n=4, d=3": {"n": 4, "d": 3}, ...}``; None reads them from labels written
    as ``n=4, d=3``). Calls that differ in one size only are compared. ``growth`` is
    ``"constant"`` (the same count for every size) or ``"logarithmic"`` (at most like
    ``c * log2(size) + b``, for a loop that doubles its step), for every size or per size
    (``{"n": "logarithmic"}``; the others stay constant). See ``grader.testing.analysis.growth``
    for how to pick sizes.
    """
    from grader.testing.analysis.growth import excesses, parse_label

    we, wz = _what_names(what)
    counts = {label: record.ops for label, record in records.items()}
    if any(count is None for count in counts.values()):
        raise ValueError("assert_op_growth needs calls made with trace=True")
    if sizes is None:
        sizes = {label: parse_label(label) for label in records}
    found = excesses(counts, sizes, growth)
    if not found:
        return
    excess = found[0]
    sep = "; " if any("," in label for label in excess.labels) else ", "
    pairs = sep.join(
        f"{label}: {count}" for label, count in zip(excess.labels, excess.counts, strict=True)
    )
    data = {
        "sizes": [dict(sizes[label]) for label in excess.labels],
        "ops": list(excess.counts),
        "labels": list(excess.labels),
        "growth": excess.growth,
    }
    if excess.growth == "constant":
        fail(
            f"{we} performs more tensor operations for larger inputs ({pairs}), so it loops in "
            "Python over the elements. Use broadcasting or a vectorised operation instead.",
            f"{wz} 的输入越大，执行的张量运算越多（{pairs}），说明它在用 Python 循环逐个处理元素。"
            "请改用广播或向量化运算。",
            evidence=["op_count_grows"],
            data=data,
        )
    worst = max(excess.allowed, key=lambda lbl: records[lbl].ops - excess.allowed[lbl])
    label, limit = worst, excess.allowed[worst]
    data["allowed"] = dict(excess.allowed)
    fail(
        f"{we} performs more tensor operations for larger inputs than a loop that runs "
        f"log2({excess.parameter}) times would ({pairs}; at most about {limit:.0f} for "
        f"{label}), so it loops in Python over the elements. Loop over doubling steps "
        "(1, 2, 4, ...) with whole-tensor operations instead.",
        f"{wz} 的输入越大，执行的张量运算增长得比循环 log2({excess.parameter}) 次还快"
        f"（{pairs}；{label} 最多约 {limit:.0f} 次），说明它在用 Python 循环逐个处理元素。"
        "请按倍增的步长（1、2、4……）循环，每一步用整个张量的运算。",
        evidence=["op_count_grows"],
        data=data,
    )


def assert_ops_constant(records: Sequence[Any], sizes: Sequence[int], what: str | Text) -> None:
    """The number of tensor operations must not grow with the input size (no Python loops):
    :func:`assert_op_growth` with one size ``n``."""
    labelled: dict[str, Any] = {}
    numeric: dict[str, dict[str, int]] = {}
    for i, (record, n) in enumerate(zip(records, sizes, strict=True)):
        label = f"n={n}" if f"n={n}" not in labelled else f"n={n} ({i + 1})"
        labelled[label] = record
        numeric[label] = {"n": int(n)}
    if any(r.ops is None for r in records):
        raise ValueError("assert_ops_constant needs calls made with trace=True")
    assert_op_growth(labelled, numeric, what)


# The evidence of a check that fails closed names why (no diagnosis of a loop or a forbidden
# call, which the learner may not have written).
def _unanalysable(function: str, problem: Any) -> NoReturn:
    fail(
        f"The grader cannot check how {function} is written. {problem.en} Until it can, this "
        "check fails.",
        f"评分器无法检查 {function} 的写法。{problem.zh}在此之前，这项检查不能通过。",
        evidence=["source_unanalysable"],
    )


def _where(function: str, helper: str | None) -> tuple[str, str]:
    if helper is None:
        return ", in module-level code", "，在模块顶层代码中"
    if helper == function:
        return "", ""
    return f", in {helper}", f"，在 {helper} 中"


def assert_no_loops(source: str, function: str, *, growth: str = "constant") -> None:
    """A static backstop for "no Python loops": nothing reachable from ``function`` loops in
    Python (for/while, comprehensions, map/filter/reduce/itertools, recursion).

    The whole file is read (never run): helpers, nested functions, lambdas, methods of the
    classes it uses and functions it passes around count. ``growth="logarithmic"`` allows
    loops that visibly run O(log n) times (a doubling ``while step < n`` loop, a
    ``range(n.bit_length())`` loop), for a Hillis-Steele scan. A file the grader cannot
    analyse fails.
    """
    from grader.testing.analysis import Unanalysable, loops_in, reach

    evidence = ["op_count_grows", "python_loop_in_source"]
    try:
        loops = loops_in(source, function, growth)
        defined = reach(source, function).defined
    except Unanalysable as exc:
        _unanalysable(function, exc.problem)
    if not defined:
        _not_found(function)
    if not loops:
        return
    computed = [loop for loop in loops if loop.kind == "computed name"]
    if computed and len(computed) == len(loops):
        shown = ", ".join(f"{line_en(c.line)}: {c.detail}" for c in computed[:5])
        shown_zh = "，".join(f"{line_zh(c.line)}：{c.detail}" for c in computed[:5])
        fail(
            f"{function} reaches names through strings or changes what code runs ({shown}), so "
            "the grader cannot check that it does not loop in Python. Write the names out and "
            "leave modules and functions as they are (torch.exp(x), not getattr(torch, name)).",
            f"{function} 通过字符串访问名字，或在运行时改变要执行的代码（{shown_zh}），评分器因此"
            "无法确认它没有使用 Python 循环。请直接写出名字，不要修改模块和函数"
            "（写 torch.exp(x)，而不是 getattr(torch, name)）。",
            evidence=["source_computed_names"],
        )
    shown_loops = [loop for loop in loops if loop.kind != "computed name"][:5]
    parts_en = "; ".join(f"line {loop.line}: {_loop_en(function, loop)}" for loop in shown_loops)
    parts_zh = "；".join(f"第 {loop.line} 行：{_loop_zh(function, loop)}" for loop in shown_loops)
    more = len(loops) - len(shown_loops)
    if more > 0:
        parts_en += f"; and {more} more"
        parts_zh += f"；另有 {more} 处"
    allowed_en = allowed_zh = ""
    if growth == "logarithmic":
        allowed_en = " Only loops over doubling steps (1, 2, 4, ...) are allowed here."
        allowed_zh = "这里只允许按倍增步长（1、2、4……）进行的循环。"
    fail(
        f"{function} loops in Python ({parts_en}); express it with tensor operations "
        f"(broadcasting, reductions along a dim) instead.{allowed_en}",
        f"{function} 使用了 Python 循环（{parts_zh}）；请改用张量运算（广播、沿某个维度归约）。"
        f"{allowed_zh}",
        evidence=evidence,
        data={
            "loops": [{"line": loop.line, "kind": loop.kind, "in": loop.function} for loop in loops]
        },
    )


def _loop_en(function: str, loop: Any) -> str:
    where = "" if loop.function == function else f" in {loop.function}"
    if loop.kind == "recursion":
        return f"recursion {loop.detail}"
    if loop.kind == "iteration protocol":
        return f"{loop.function} can be iterated ({loop.detail})"
    if loop.kind == "higher-order call":
        return f"a function handed to {_call(loop.detail)}{where}, which may call it per element"
    if loop.kind == "yield from":
        return f"yield from{where}"
    if loop.kind in _SYNTAX_LOOPS:
        return f"a {loop.kind}{where}"
    return f"{_call(loop.kind)}{where}"


def _loop_zh(function: str, loop: Any) -> str:
    from grader.testing.analysis.loops import _KINDS_ZH

    where = "" if loop.function == function else f"{loop.function} 中的"
    if loop.kind == "recursion":
        return f"递归 {loop.detail}"
    if loop.kind == "iteration protocol":
        return f"{loop.function} 可被迭代（{loop.detail}）"
    if loop.kind == "higher-order call":
        return f"{where}交给 {_call(loop.detail)} 的函数（它可能对每个元素调用一次）"
    if loop.kind == "yield from":
        return f"{where}yield from"
    if loop.kind in _SYNTAX_LOOPS:
        return f"{where}{_KINDS_ZH[loop.kind]}"
    return f"{where}{_call(loop.kind)}"


_SYNTAX_LOOPS = (
    "for loop",
    "async for loop",
    "while loop",
    "list comprehension",
    "set comprehension",
    "dict comprehension",
    "generator expression",
)


def _call(name: str) -> str:
    """map(...), itertools.accumulate(...), iter(f, sentinel)."""
    return name if "(" in name else f"{name}(...)"


def _not_found(function: str) -> NoReturn:
    fail(
        f"The grader cannot find where your file defines {function} (a `def {function}(...)` "
        "at the top level of the file), so it cannot check it.",
        f"评分器找不到你的文件在哪里定义了 {function}（文件顶层的 `def {function}(...)`），"
        "因此无法检查它。",
        evidence=["source_unanalysable"],
    )


def assert_not_forbidden(exercise: Any, function: str, source: str, record: Any = None) -> None:
    """The learner's ``function`` uses none of the APIs the exercise's ``forbidden`` list names.

    Checked twice: statically in the learner's whole file (names resolved to what they are:
    any import alias, method and in-place forms, private spellings, helpers and module-level
    code, see ``grader.testing.analysis.rules``), and, given the ``record`` of a call made with
    ``trace=True``, by the torch functions that call actually made. Code that reaches names
    through strings (``getattr(torch, name)``) counts as a use that cannot be ruled out, and a
    file the grader cannot analyse fails.
    """
    from grader.testing.analysis import Unanalysable, forbidden_uses, matches, reach

    rules = [r for r in exercise.forbidden if not r.functions or function in r.functions]
    if not rules:
        return
    graded = tuple(f.name for f in exercise.functions)
    names = [name for r in rules for name in _rule_names(r)]
    try:
        uses = forbidden_uses(source, function, names, graded)
        defined = reach(source, function).defined
    except Unanalysable as exc:
        _unanalysable(function, exc.problem)
    if not defined:
        _not_found(function)
    for r in rules:
        own = set(_rule_names(r))
        hits: list[tuple[str, str]] = []
        for use in uses:
            if use.rule in own:
                where, where_zh = _where(function, use.function)
                hits.append(
                    (
                        f"{use.name} (line {use.line}{where})",
                        f"{use.name}（第 {use.line} 行{where_zh}）",
                    )
                )
        if record is not None and not hits:
            # Only what the source does not show: the call's trace, torch functions before the
            # operators they dispatched to (``aten._softmax.default`` means little to a learner).
            traced = [name for name in _traced(record) if any(matches(name, n) for n in own)]
            hits += [(n, n) for n in [n for n in traced if not n.startswith("aten.")] or traced[:1]]
        if hits:
            shown = ", ".join(dict.fromkeys(en for en, _ in hits))
            shown_zh = "，".join(dict.fromkeys(zh for _, zh in hits))
            fail(
                f"{function} must not use {r.name}, but yours does: {shown}. {r.why.en}",
                f"{function} 不能使用 {r.name}，但你的代码用了：{shown_zh}。{r.why.zh}",
                evidence=["forbidden_call"],
            )
    computed = [use for use in uses if use.computed]
    if computed:
        r = rules[0]
        listed = ", ".join(x.name for x in rules)
        shown = ", ".join(f"line {u.line}: {u.spelled}" for u in computed[:5])
        shown_zh = "，".join(f"第 {u.line} 行：{u.spelled}" for u in computed[:5])
        fail(
            f"{function} must not use {listed}, and the grader cannot rule out that yours does: "
            f"your code reaches names through strings or changes what code runs ({shown}). "
            "Write the names out and leave modules and functions as they are (torch.exp(x), "
            f"not getattr(torch, name)). {r.why.en}",
            f"{function} 不能使用 {listed}，而评分器无法排除你的代码用了它：你的代码通过字符串"
            f"访问名字，或在运行时改变要执行的代码（{shown_zh}）。请直接写出名字，不要修改模块和函数"
            f"（写 torch.exp(x)，而不是 getattr(torch, name)）。{r.why.zh}",
            evidence=["source_computed_names"],
        )


def _traced(record: Any) -> list[str]:
    """The names a traced call recorded: torch functions (``record.functions``) and, where
    the learner side records them, ATen operators (``record.aten_ops``, e.g.
    ``aten._softmax.default``), both matched with ``grader.testing.analysis.matches``."""
    names = list(getattr(record, "functions", None) or {})
    names += [n for n in getattr(record, "aten_ops", None) or {} if n not in names]
    return names


def _rule_names(rule: Any) -> tuple[str, ...]:
    names = getattr(rule, "names", None)
    return tuple(names) if names else (rule.name,)


def assert_not_called(record: Any, names: str | Iterable[str], what: str | Text) -> None:
    """None of these torch functions was called in the traced call ``record``.

    A bare name (``softmax``) matches every spelling of the operation (torch.softmax,
    Tensor.softmax, F.softmax, in-place forms, ATen operators); a dotted one (``torch.optim``,
    ``nn.Linear``) matches that object and what is under it (see
    ``grader.testing.analysis.rules``).
    """
    from grader.testing.analysis import matches

    we, wz = _what_names(what)
    wanted = (names,) if isinstance(names, str) else tuple(names)
    used = sorted(name for name in _traced(record) if any(matches(name, w) for w in wanted))
    if not used:
        return
    fail(
        f"{we} uses {', '.join(used)}, which this exercise asks you to write yourself.",
        f"{wz} 使用了 {', '.join(used)}，而本练习要求你自己实现它。",
        evidence=["forbidden_call"],
    )


def assert_not_returned_exception(value: Any, type_name: str, what: str | Text) -> None:
    """Where an exception was due, the call's result is not an exception object: ``return
    ValueError(...)`` in place of ``raise``. Only a built-in exception class is recognised by
    its name (what crosses the boundary of a learner's object)."""
    if not isinstance(value, Opaque):
        return
    cls = getattr(builtins, value.type_name, None)
    if not (isinstance(cls, type) and issubclass(cls, BaseException)):
        return
    we, wz = names(what)
    fail(
        f"{we} should raise {type_name}, but it returned {value.repr}: an exception object "
        "that was returned, not raised. Write raise where you wrote return.",
        f"{wz} 应该抛出 {type_name}，但它返回了 {value.repr}：这个异常对象被 return 了，"
        "而没有被 raise。请把 return 改成 raise。",
        evidence=["no_exception", "exception_returned"],
    )


@contextmanager
def expect_raises(type_name: str, what: str | Text) -> Iterator[None]:
    """The learner's code must raise ``type_name`` (or a subclass) inside this block."""
    we, wz = names(what)
    from grader.sandbox.faults import LearnerRaised

    try:
        yield
    except LearnerRaised as exc:
        if type_name in exc.mro:
            return
        en, zh, tag = _own_raise_story(exc, type_name)
        fail(
            f"{we} should raise {type_name}, but it raised {exc.type_name}: {exc.text}{en}",
            f"{wz} 应该抛出 {type_name}，但它抛出了 {exc.type_name}：{exc.text}{zh}",
            evidence=["wrong_exception", *([tag] if tag else [])],
        )
    fail(
        f"{we} should raise {type_name}, but it returned normally.",
        f"{wz} 应该抛出 {type_name}，但它正常返回了。",
        evidence=["no_exception"],
    )


_RAISE_LINE = re.compile(r"raise\s+(?:[A-Za-z_]\w*\.)*([A-Za-z_]\w*)\s*(?:\(|$|\s+from\b)")


def _own_raise_story(exc: LearnerRaised, type_name: str) -> tuple[str, str, str]:
    """What the learner's own line tells of an exception of another type than ``type_name``:
    a ``raise Exception(...)`` (or RuntimeError, TypeError, ...) of the learner's that names the
    very type raised, or an ``assert`` that raised AssertionError. Where the error came from an
    operation (PyTorch's IndexError, a NameError of a misspelt class), nothing: ("", "", "")."""
    frames = exc.frames
    code = frames[-1].code.strip() if frames else ""
    raised = exc.type_name
    if raised == "AssertionError" and re.match(r"assert\b", code):
        return (
            f". Your line `{code}` is an assert: it raises AssertionError, never {type_name} "
            "(and python -O removes asserts altogether). Test the condition with if and raise "
            f"{type_name}(...) yourself.",
            f"。你的这一行 `{code}` 是 assert：它抛出的是 AssertionError，而不是 {type_name}"
            f"（python -O 还会把 assert 整个去掉）。请用 if 判断条件，并自己 raise {type_name}(...)。",
            "assert_not_raise",
        )
    match = _RAISE_LINE.match(code)
    if match is None or match.group(1) != raised:
        return "", "", ""
    return (
        f". Your line `{code}` raises {raised} itself, where {type_name} was asked: a caller "
        f"catches by type (except {type_name}:), and an exception of type {raised} goes past it. "
        f"Raise {type_name}(...) there.",
        f"。你的这一行 `{code}` 自己抛出了 {raised}，而要求的是 {type_name}：调用者按类型捕获异常"
        f"（except {type_name}:），{raised} 会从它旁边漏过去。请在那里 raise {type_name}(...)。",
        "raised_other_type",
    )
