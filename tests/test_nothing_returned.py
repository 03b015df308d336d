"""A function that forgot its return statement (exercise 7's ``centered = x - ...`` as the
last line, exercise 1's ``grid = ...``) returns None and was told "The result is not a plain
tensor", whose fix is to drop .item(), .tolist() or .numpy() and not to subclass: none of it
applies. None where a tensor, an array or a value of some type was due is now named "Nothing
returned", with the fix to return the result; any other wrong value keeps its story."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed, assert_type, expect_array, expect_tensor

CHECKS = [
    lambda v: expect_tensor(v, "f(x)"),
    lambda v: expect_array(v, "f(x)"),
    lambda v: assert_type(v, dict, "f(x)"),
]


@pytest.mark.parametrize("check", CHECKS)
def test_none_is_named_nothing_returned(check):
    with pytest.raises(CheckFailed) as caught:
        check(None)
    assert "returned_none" in caught.value.evidence
    assert "without a return statement" in caught.value.message.en
    assert "return" in caught.value.message.zh
    entry = match(DiagnosisCatalog.load(), tuple(caught.value.evidence), None)
    assert entry is not None and entry.id == "nothing-returned"


OTHER = st.one_of(
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=10),
    st.lists(st.integers(), max_size=4),
    st.booleans(),
    st.just(np.zeros(3)),
    st.just(torch.zeros(2).tolist()),
)


@given(value=OTHER, which=st.integers(0, 2))
def test_any_other_wrong_value_is_not_called_nothing_returned(value, which):
    kinds = (torch.Tensor, np.ndarray, dict)
    if isinstance(value, kinds[which]):
        return
    with pytest.raises(CheckFailed) as caught:
        CHECKS[which](value)
    assert "returned_none" not in caught.value.evidence
    assert "without a return statement" not in caught.value.message.en
