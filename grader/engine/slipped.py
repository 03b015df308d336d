"""Static evidence joined to a failure: a slip on the learner's own line that explains it.

A failure carries dynamic evidence (tags from the hidden tests' checks, the learner's
exception); the learner's file may show a slip (``grader.testing.analysis.slips``). The slip
becomes the diagnosis only when the two agree: a dropped ``.contiguous()`` explains a ``view``
error, a dropped ``.float()`` a wrong dtype, ``with torch.no_grad()`` around the forward pass a
loss outside the graph. When the failure already carries a specific tag that names another
mistake, or the kinds disagree, nothing is added: the plain message is better than a guess.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from grader.i18n import Text
from grader.notebooks import line_en, line_zh
from grader.testing import relations
from grader.testing.analysis.slips import Slip, returned_under_no_grad, slips

# Tags the generic checks attach (checks.py, relations.py): they say *that* the answer is
# wrong, not which mistake made it, so a slip may refine them.
GENERIC = frozenset(
    {
        "values_differ",
        "wrong_shape",
        "wrong_dtype",
        "wrong_device",
        "nan_in_output",
        "inf_in_output",
        "size_one_dims",
        "dims_permuted",
        "check_failed",
        "integer_instead_of_float",
        "float_instead_of_integer",
        "bool_dtype_mismatch",
        "float64_from_numpy",
        "dtype_not_kept",
        "broadcast_shape",
        "graph_broken",
        "no_gradient",
        "parameters_never_move",
        "wrong_length",
        "learner_exception",
    }
)

_VIEW = re.compile(r"view size is not compatible", re.I)
_SHAPE_ERRORS = re.compile(
    r"must match the size of tensor|Attempting to broadcast a dimension|shapes cannot be "
    r"multiplied|must have same reduction dim|is invalid for input of size|size mismatch",
    re.I,
)
_DTYPE_ERRORS = re.compile(
    r"scalar type|dtype|could not infer output dtype|not implemented for '|can't be cast", re.I
)
_DEVICE_ERRORS = re.compile(r"device", re.I)
_NOT_IN_GRAPH = re.compile(r"does not require grad and does not have a grad_fn", re.I)
_GRAD_NONE = re.compile(r"NoneType", re.I)
T_WARNING = "The use of `x.T` on tensors of dimension other than 2"


@dataclass(frozen=True)
class Refined:
    message: Text
    evidence: tuple[str, ...]
    line: int


def refine(
    message: Text,
    evidence: tuple[str, ...],
    error: dict[str, Any] | None,
    output: str,
    source: str,
    functions: Iterable[str],
    named: frozenset[str] | None = None,
) -> Refined | None:
    """The failure with a slip that agrees with it, or None (leave it as it is). ``named``:
    the evidence tags the diagnosis catalogue has an entry for; a tag without one names no
    mistake the learner would read, so it does not stand against a slip."""
    functions = tuple(functions)
    specific = {tag for tag in evidence if tag not in GENERIC and (named is None or tag in named)}
    if specific and not specific <= _EXPLAINED:
        return None
    found = slips(source, functions)
    if {"graph_broken", "no_gradient"} & set(evidence):
        found += returned_under_no_grad(source, functions)
    if not found:
        return None
    text = f"{error.get('type', '')}: {error.get('message', '')}" if error else ""
    agreeing = [
        s
        for s in found
        if specific <= _explains(s)
        and _agrees(s, evidence, text, output)
        and not _told_of_another_input(s, functions)
    ]
    if not agreeing:
        return None
    kinds = {(s.kind, s.group) for s in agreeing}
    if len(kinds) > 1:
        return None  # two different explanations: say less
    slip = agreeing[0]
    tag, en, zh = _story(slip)
    return Refined(
        Text(f"{_ended(message.en, '.')} {en}", f"{_ended(message.zh, '。')}{zh}"),
        (*evidence, tag),
        slip.line,
    )


def _ended(text: str, stop: str) -> str:
    """``text`` ending a sentence, so that a story can follow it (an exception's message, such
    as "'NoneType' object has no attribute 'item'", often has no full stop)."""
    stripped = text.rstrip()
    if not stripped or stripped.endswith((".", "!", "?", "。", "！", "？", ":", "：")):
        return text
    return stripped + stop


# Specific tags a slip explains better than the check that attached them: a dropped .clone()
# is why the answer shares memory, a dropped .detach() why it still requires grad.
_CLONE = frozenset({"shares_memory", "detach_shares_memory"})
_DETACH = frozenset({"requires_grad_output", "returned_requires_grad", "clone_keeps_graph"})
# The exercises' own layout and dtype tags: a dropped .transpose(1, 2) is why the heads are not
# transposed, a dropped .float() why the dtype is not kept.
_LAYOUT = frozenset(
    {
        "view_non_contiguous",
        "heads_not_transposed",
        "heads_scrambled",
        "reshape_not_permute",
        "new_dim_misplaced",
        "height_width_swapped",
        "squeezed_too_much",
        "squeeze_noop",
        "answer_transposed",
        "answer_permuted",
    }
)
_DTYPE = frozenset(
    {
        "dtype_not_kept",
        "float_dtypes_mixed",
        "dtype_promoted",
        "labels_not_int64",
        "numpy_float64_kept",
        "integer_pixel_arithmetic",
        "one_hot_not_float",
    }
)
_DEVICE = frozenset({"created_on_cpu", "device_branch"})
# Values the checks name as off by a factor: a dropped `w * 0.01` is why the weights keep the
# standard normal's scale.
_VALUES = frozenset({"normal_wrong_scale"})
_EXPLAINED = _CLONE | _DETACH | _LAYOUT | _DTYPE | _DEVICE | _VALUES


def _explains(slip: Slip) -> frozenset[str]:
    if slip.kind != "discarded":
        return frozenset()
    if slip.method == "clone":
        return _CLONE
    if slip.method == "detach":
        return _DETACH
    return {
        "layout": _LAYOUT,
        "dtype": _DTYPE,
        "device": _DEVICE,
        "to": _DTYPE | _DEVICE,
        "values": _VALUES,
    }.get(slip.group, frozenset())


def _told_of_another_input(slip: Slip, functions: Iterable[str]) -> bool:
    """A .T taken of an argument of a graded function, where every tensor the failing call
    passed is 2-D: there .T is a true transpose, so PyTorch's warning came from another call
    (a 1-D or 3-D input of the same test), and the story would be told of the wrong input."""
    if slip.kind != "transpose_attr" or not slip.on_parameter or slip.function not in functions:
        return False
    shapes = relations.argument_shapes()
    return bool(shapes) and all(len(shape) == 2 for shape in shapes)


def _agrees(slip: Slip, evidence: tuple[str, ...], error: str, output: str) -> bool:
    tags = set(evidence)
    if slip.kind == "discarded":
        if slip.group == "layout":
            if slip.method == "contiguous":
                return bool(_VIEW.search(error))
            return bool(
                _SHAPE_ERRORS.search(error)
                or _VIEW.search(error)
                or tags & ({"wrong_shape", "values_differ"} | _LAYOUT)
            )
        if slip.group == "dtype":
            return bool(
                (error and _DTYPE_ERRORS.search(error))
                or tags
                & ({"wrong_dtype", "integer_instead_of_float", "float_instead_of_integer"} | _DTYPE)
            )
        if slip.group == "to":  # .to(dtype) or .to(device): either failure agrees
            return bool(
                (error and (_DTYPE_ERRORS.search(error) or _DEVICE_ERRORS.search(error)))
                or tags & ({"wrong_dtype", "wrong_device"} | _DTYPE | _DEVICE)
            )
        if slip.group == "device":
            return bool(
                (error and _DEVICE_ERRORS.search(error)) or tags & ({"wrong_device"} | _DEVICE)
            )
        if slip.group == "values":
            return not error and "values_differ" in tags
        if slip.group == "select":  # a dropped selection leaves every element in place
            return not error and bool(tags & {"values_differ", "wrong_shape"})
        if slip.group == "graph":
            # a dropped .clone() or .detach() explains only what it would have prevented
            return bool(set(evidence) & _explains(slip))
    if slip.kind == "transpose_attr":
        return T_WARNING in output and not error.startswith("RuntimeError: view")
    if slip.kind == "returned_under_no_grad":  # the answer has no graph: that alone
        return bool(tags & {"graph_broken", "no_gradient"})
    if slip.kind == "forward_under_no_grad":
        # backward() on that value either refuses it or, with requires_grad set on it
        # afterwards, stops at it: the tensors it was computed from keep .grad None
        return bool(_NOT_IN_GRAPH.search(error) or _GRAD_NONE.search(error)) or bool(
            tags & {"graph_broken", "no_gradient", "parameters_never_move"}
        )
    if slip.kind == "data":
        return bool(_NOT_IN_GRAPH.search(error) or _GRAD_NONE.search(error)) or bool(
            tags & {"graph_broken", "no_gradient", "parameters_never_move"}
        )
    return False


def _story(slip: Slip) -> tuple[str, str, str]:
    at_en, at_zh = line_en(slip.line), line_zh(slip.line)
    code = f"`{slip.code}`"
    if slip.kind == "discarded":
        assign = _assignment(slip) if slip.form == "method" else slip.keep
        keep_en = f": {assign}" if assign else ""
        keep_zh = f"：{assign}" if assign else ""
        if slip.form != "method":
            what_en = (
                f"torch.{slip.method}() returns a new tensor and changes none of its arguments"
                if slip.form == "function"
                else "an operator or an index computes a new tensor and changes none of the "
                "tensors it reads"
            )
            what_zh = (
                f"torch.{slip.method}() 返回一个新张量，不会修改它的任何参数"
                if slip.form == "function"
                else "运算符或索引会算出一个新张量，不会修改它读取的任何张量"
            )
            return (
                "result_discarded",
                f"{at_en.capitalize()}: {code} makes a new tensor and your code throws it away, "
                f"so that line changes nothing: {what_en}. Keep its result{keep_en}.",
                f"{at_zh}：{code} 生成了一个新张量，而你的代码把它丢掉了，所以这一行什么也没改变："
                f"{what_zh}。请保留它的结果{keep_zh}。",
            )
        return (
            "result_discarded",
            f"{at_en.capitalize()}: {code} makes a new tensor and your code throws it away, so "
            f"that line changes nothing. .{slip.method}() does not change the tensor it is "
            f"called on; keep its result{keep_en}.",
            f"{at_zh}：{code} 生成了一个新张量，而你的代码把它丢掉了，所以这一行什么也没改变。"
            f".{slip.method}() 不会修改调用它的张量；请保留它的返回值{keep_zh}。",
        )
    if slip.kind == "transpose_attr":
        return (
            "transpose_1d",
            f"{at_en.capitalize()}: {code} uses .T on a tensor that is not 2-D (PyTorch warned: "
            f'"{T_WARNING}"). On a 1-D tensor .T changes nothing: it is still a row, not a '
            "column. Add the dimension instead: v[:, None] or v.unsqueeze(1).",
            f'{at_zh}：{code} 对一个不是二维的张量用了 .T（PyTorch 给出了警告："{T_WARNING}"）。'
            "对一维张量 .T 什么也不改变：它仍是一行，而不是一列。请改为增加一个维度：v[:, None] 或 "
            "v.unsqueeze(1)。",
        )
    if slip.kind == "forward_under_no_grad":
        return (
            "forward_under_no_grad",
            f"{at_en.capitalize()}: {code} wraps the forward pass, so the loss computed inside it "
            "records no graph and backward() has nothing to follow (setting requires_grad on "
            "it afterwards makes it a leaf of its own: backward() stops there, and the .grad "
            "of the tensors it came from stays None). Compute the prediction and the loss "
            "outside torch.no_grad().",
            f"{at_zh}：{code} 包住了前向计算，于是其中算出的损失没有记录计算图，backward() "
            "无从反向传播（事后给它设置 requires_grad 只会让它自己成为一个叶子张量：backward() "
            "到它就停下，它所由来的张量的 .grad 仍是 None）。请在 torch.no_grad() 之外计算预测和损失。",
        )
    if slip.kind == "returned_under_no_grad":
        return (
            "returned_under_no_grad",
            f"{at_en.capitalize()}: {code} wraps the computation of the value "
            f"{slip.function}() returns, so that value records no graph: nothing can flow back "
            "from it to the inputs. Compute it outside torch.no_grad() (keep no_grad for "
            "updates and evaluation only).",
            f"{at_zh}：{code} 包住了 {slip.function}() 返回值的计算，所以这个值没有记录计算图："
            "梯度无法从它传回输入。请在 torch.no_grad() 之外计算它（no_grad 只用于参数更新和评估）。",
        )
    return (
        "data_bypasses_autograd",
        f"{at_en.capitalize()}: {code} uses .data, which reads the tensor's values past autograd: "
        "nothing computed from it is in the graph.",
        f"{at_zh}：{code} 用了 .data，它绕过自动求导读取张量的值：由它算出的东西都不在计算图中。",
    )


def _assignment(slip: Slip) -> str:
    """``y = y.contiguous()`` when the statement is a plain ``name.method(...)``, else ""."""
    match = re.fullmatch(r"([A-Za-z_][A-Za-z_0-9]*)\.(\w+)\((.*)\)", slip.code)
    return f"{match.group(1)} = {slip.code}" if match is not None else ""
