"""Exercise 6: drop_dim with ``return ValueError(...)`` where ``raise`` was due was told only
"should raise ValueError, but it returned normally". A result that is a built-in exception
object (it crosses the boundary as an opaque value named by its class) is now named: the
exception was returned, not raised."""

from __future__ import annotations

import builtins

import pytest
from hypothesis import given
from hypothesis import strategies as st

from grader.sandbox.codec import Opaque
from grader.testing import CheckFailed, assert_not_returned_exception

EXCEPTIONS = sorted(
    n for n, v in vars(builtins).items() if isinstance(v, type) and issubclass(v, BaseException)
)
OTHERS = sorted(
    n
    for n, v in vars(builtins).items()
    if not (isinstance(v, type) and issubclass(v, BaseException))
)


@given(name=st.sampled_from(EXCEPTIONS), text=st.text(max_size=40))
def test_a_returned_builtin_exception_is_named(name, text):
    value = Opaque(name, f"{name}({text!r})")
    with pytest.raises(CheckFailed) as caught:
        assert_not_returned_exception(value, "ValueError", "drop_dim(x, 0)")
    assert "exception_returned" in caught.value.evidence
    assert "returned, not raised" in caught.value.message.en
    assert "raise" in caught.value.message.zh


@given(name=st.sampled_from(OTHERS + ["torch.Tensor", "mymodule.ValueError", "numpy.ndarray"]))
def test_other_opaque_values_are_not_called_exceptions(name):
    assert_not_returned_exception(Opaque(name, "<x>"), "ValueError", "drop_dim(x, 0)")


@given(value=st.one_of(st.none(), st.integers(), st.text(max_size=20)))
def test_plain_values_are_left_to_the_other_checks(value):
    assert_not_returned_exception(value, "ValueError", "drop_dim(x, 0)")
