"""Exercise 8: softmax_rows subtracting each column's maximum (``x.max(dim=0, ...)``), the
row-maximum trick along the wrong dim, got only "9 of 9 values differ" for ordinary rows and
the generic NaN advice for rows near -1000. It is now named as the column maximum."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX08 = hidden_tests("exercise-08")
WHAT = Text("softmax_rows(x)", "softmax_rows(x)")


def _column_max(x: torch.Tensor, keepdim: bool) -> torch.Tensor:
    shifted = x - x.max(dim=0, keepdim=keepdim).values  # without keepdim: (d,), the same here
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)


@given(
    n=st.integers(2, 6),
    d=st.integers(2, 6),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([1.0, 3.0, 1000.0]),
    keepdim=st.booleans(),
)
def test_the_column_maximum_is_named_whatever_the_rows(n, d, seed, scale, keepdim):
    x = scale * torch.randn(n, d, generator=torch.Generator().manual_seed(seed))
    want = torch.softmax(x, dim=1)
    got = _column_max(x, keepdim)
    assume(not torch.allclose(got, want, rtol=1e-4, atol=1e-6, equal_nan=True))
    EX08._check_softmax(want.clone(), x, want, WHAT)  # right: nothing said
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, want, WHAT)
    assert "reduced_wrong_dim" in caught.value.evidence, caught.value.message.en
    assert "column's maximum" in caught.value.message.en


def test_rows_near_minus_1000_are_told_the_column_maximum_not_generic_nan_advice():
    x = torch.tensor([[1000.0, 1001.0, 999.0], [-1000.0, -1000.0, -999.0]])
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(_column_max(x, True), x, torch.softmax(x, dim=1), WHAT)
    assert "column's maximum" in caught.value.message.en
    assert "列的最大值" in caught.value.message.zh
