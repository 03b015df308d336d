"""A function that must raise one exception type (exercise 06's drop_dim: ValueError) and
raised another got only "should raise ValueError, but it raised Exception". Where the
learner's own line raised it (`raise Exception(...)`, `raise RuntimeError(...)`) or an assert
did, that line is now named (`wrong-exception-type`, `assert-for-validation`); an exception an
operation raised (PyTorch's IndexError, the NameError of a misspelt class, an error raised
again by name) is told nothing more."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.sandbox.faults import LearnerRaised
from grader.sandbox.messages import ErrorFrame, ErrorInfo
from grader.testing.checks import CheckFailed, expect_raises

_CLASSES = {
    "Exception": ("Exception", "BaseException", "object"),
    "RuntimeError": ("RuntimeError", "Exception", "BaseException", "object"),
    "TypeError": ("TypeError", "Exception", "BaseException", "object"),
    "IndexError": ("IndexError", "LookupError", "Exception", "BaseException", "object"),
    "KeyError": ("KeyError", "LookupError", "Exception", "BaseException", "object"),
    "AssertionError": ("AssertionError", "Exception", "BaseException", "object"),
    "NameError": ("NameError", "Exception", "BaseException", "object"),
}


def _failure(type_name: str, code: str) -> CheckFailed:
    fault = LearnerRaised(
        Text(f"{type_name}: no", f"{type_name}：no"),
        error=ErrorInfo(
            kind="call",
            type=type_name,
            classes=_CLASSES[type_name],
            message="no",
            frames=(ErrorFrame(3, "drop_dim", code),),
        ),
    )
    with pytest.raises(CheckFailed) as caught, expect_raises("ValueError", "drop_dim(x, 0)"):
        raise fault
    return caught.value


_RAISED = ["Exception", "RuntimeError", "TypeError", "IndexError", "KeyError", "AssertionError"]


@given(
    raised=st.sampled_from(_RAISED),
    qualified=st.booleans(),
    message=st.sampled_from(["", '"dimension must be 1"', 'f"size {x.shape[dim]}"']),
    cause=st.sampled_from(["", " from None", " from err"]),
)
def test_the_learners_own_raise_of_another_type_is_named(raised, qualified, message, cause):
    name = ("builtins." if qualified else "") + raised
    code = f"raise {name}({message}){cause}"
    failure = _failure(raised, code)
    assert "raised_other_type" in failure.evidence
    assert code in failure.message.en and code in failure.message.zh
    assert "Raise ValueError(...) there" in failure.message.en


@pytest.mark.parametrize(
    ("raised", "code"),
    [
        ("NameError", 'raise ValueErorr("dimension must be 1")'),  # a misspelt class
        ("IndexError", "return x.squeeze(dim)"),  # PyTorch's own error
        ("RuntimeError", "raise err"),  # raised again by name: not the learner's choice of type
        ("RuntimeError", "raise"),
        ("TypeError", 'raise ValueError("no" + 1)'),  # the message itself failed
        ("AssertionError", "raise x.shape[dim] == 1"),
        ("IndexError", "if x.shape[dim] != 1: raise_error(dim)"),
    ],
)
def test_an_error_of_an_operation_is_told_nothing_more(raised, code):
    failure = _failure(raised, code)
    assert list(failure.evidence) == ["wrong_exception"]
    assert "Your line" not in failure.message.en


@pytest.mark.parametrize(
    "code", ["assert x.shape[dim] == 1", 'assert x.shape[dim] == 1, "size must be 1"']
)
def test_an_assert_is_named(code):
    failure = _failure("AssertionError", code)
    assert "assert_not_raise" in failure.evidence
    assert "python -O" in failure.message.en and "python -O" in failure.message.zh
