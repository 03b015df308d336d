"""`.clone().view(...)` on a transposed tensor raises PyTorch's "view size is not compatible",
and the diagnosis said to "call .contiguous() right before .view(...)", which a learner who
just cloned believed done. Where the line that raised views a clone, the diagnosis
`clone-keeps-strides` says that clone() keeps the strides."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.sandbox.faults import raised
from grader.sandbox.messages import ErrorFrame, ErrorInfo

CATALOG = DiagnosisCatalog.load()


def _pytorch_message() -> str:
    try:
        torch.arange(6.0).reshape(2, 3).t().clone().view(-1)
    except RuntimeError as exc:
        return str(exc)
    raise AssertionError("clone() of a transposed tensor is contiguous in this torch")


MESSAGE = _pytorch_message()


def _fault(code: str, message: str = MESSAGE):
    error = ErrorInfo(
        kind="call",
        type="RuntimeError",
        classes=("RuntimeError", "Exception", "BaseException", "object"),
        message=message,
        frames=(ErrorFrame(6, "flatten_transposed", code),),
    )
    return raised(error, "flatten_transposed")


@given(
    source=st.sampled_from(["x.t()", "x.transpose(0, 1)", "x.permute(1, 0)", "x.mT", "y"]),
    args=st.sampled_from(["", "memory_format=torch.preserve_format"]),
    shape=st.sampled_from(["-1", "x.numel()", "n, m", "(-1,)"]),
    space=st.sampled_from(["", " "]),
)
def test_a_view_of_a_clone_is_told_the_strides(source, args, shape, space):
    fault = _fault(f"return {source}.clone({args}){space}.view({shape})")
    assert "view_after_clone" in fault.evidence
    entry = match(CATALOG, fault.evidence, {"type": "RuntimeError", "message": MESSAGE})
    assert entry is not None and entry.id == "clone-keeps-strides"
    assert "keeps the strides" in entry.title.en and "步长" in entry.title.zh
    assert ".contiguous()" in entry.fix.en


@pytest.mark.parametrize(
    "code",
    [
        "return x.t().view(-1)",
        "return y.view(-1)",  # the clone on another line: this line alone does not show it
        "return x.t().clone().reshape(-1).view(2, 3)",
    ],
)
def test_a_view_of_no_clone_keeps_the_general_advice(code):
    fault = _fault(code)
    assert "view_after_clone" not in fault.evidence
    entry = match(CATALOG, fault.evidence, {"type": "RuntimeError", "message": MESSAGE})
    assert entry is not None and entry.id == "view-non-contiguous"


def test_another_error_on_such_a_line_is_not_told_the_strides():
    fault = _fault("return x.t().clone().view(5)", "shape '[5]' is invalid for input of size 6")
    assert "view_after_clone" not in fault.evidence
