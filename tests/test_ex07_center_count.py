"""Exercise 7: center_columns as x - x.sum(0) / x.shape[1] (each column's sum divided by the
number of columns, where its mean divides by the number of rows) got only "12 of 12 values
differ". It is now named where the result is exactly that, and only where x is not square (a
square x makes it the right answer)."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")
WHAT = Text("center_columns(x)", "center_columns(x)")


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), d=st.integers(1, 6), seed=st.integers(0, 2**16))
def test_a_mean_over_the_number_of_columns_is_named_and_only_it(n, d, seed):
    x = torch.randn(n, d, generator=torch.Generator().manual_seed(seed)) * 3 + 5
    want = x - x.mean(dim=0, keepdim=True)
    rtol, atol = EX07._center_tol(x)
    EX07._name_center_mistake(want.clone(), x, want, rtol, atol, WHAT)  # right: nothing said
    wrong = x - x.sum(dim=0, keepdim=True) / x.shape[1]
    if torch.allclose(wrong, want, rtol=rtol, atol=atol):
        return  # square x: the same answer
    try:
        EX07._name_center_mistake(wrong, x, want, rtol, atol, WHAT)
    except CheckFailed as caught:
        evidence = caught.evidence
        message = caught.message
    else:
        evidence, message = (), Text("", "")
    assert "mean_over_wrong_count" in evidence
    assert "x.shape[0]" in message.en and "x.shape[0]" in message.zh


@pytest.mark.parametrize("shape", [(4, 3), (2, 5)])
def test_the_row_means_are_not_told_the_count(shape):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(0)) + 2
    want = x - x.mean(dim=0, keepdim=True)
    rtol, atol = EX07._center_tol(x)
    with pytest.raises(CheckFailed) as caught:
        EX07._name_center_mistake(x - x.mean(dim=1, keepdim=True), x, want, rtol, atol, WHAT)
    assert "mean_over_wrong_count" not in caught.value.evidence
