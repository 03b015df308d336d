"""Exercise 8: softmax_rows dividing by the sum of the whole tensor (``e / e.sum()``, dim
forgotten) got only "9 of 9 values differ" and "row 0 of yours sums to 0.5". Values that are
the whole tensor's normalisation, with x shifted by each row's maximum or by the tensor's, are
now named, only where x has at least two rows and two columns (otherwise that is the softmax
of the rows, or of the columns)."""

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


def _whole(x: torch.Tensor, row_shift: bool) -> torch.Tensor:
    m = x.max(dim=1, keepdim=True).values if row_shift else x.max()
    e = (x - m).exp()
    return e / e.sum()


@given(
    n=st.integers(2, 6),
    d=st.integers(2, 6),
    seed=st.integers(0, 2**16),
    scale=st.sampled_from([1.0, 3.0]),
    row_shift=st.booleans(),
)
def test_the_whole_tensor_sum_is_named_whatever_the_rows(n, d, seed, scale, row_shift):
    x = scale * torch.randn(n, d, generator=torch.Generator().manual_seed(seed))
    want = torch.softmax(x, dim=1)
    got = _whole(x, row_shift)
    assume(not torch.allclose(got, want, rtol=1e-4, atol=1e-6))
    EX08._check_softmax(want.clone(), x, want, WHAT)  # right: nothing said
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, want, WHAT)
    assert "reduced_all_dims" in caught.value.evidence, caught.value.message.en
    assert "sum of the whole tensor" in caught.value.message.en
    assert "整个张量的和" in caught.value.message.zh


@given(n=st.integers(2, 6), seed=st.integers(0, 2**16))
def test_one_column_normalised_is_not_told_the_whole_tensor(n, seed):
    # with one column, the column softmax and the whole tensor's normalisation are the same
    x = torch.randn(n, 1, generator=torch.Generator().manual_seed(seed))
    got = torch.softmax(x, dim=0)
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, torch.softmax(x, dim=1), WHAT)
    assert "sum of the whole tensor" not in caught.value.message.en


@given(n=st.integers(2, 6), d=st.integers(2, 6), seed=st.integers(0, 2**16))
def test_columns_normalised_are_told_the_columns_not_the_whole_tensor(n, d, seed):
    x = torch.randn(n, d, generator=torch.Generator().manual_seed(seed))
    got = torch.softmax(x, dim=0)
    assume(not torch.allclose(got, torch.softmax(x, dim=1), rtol=1e-4, atol=1e-6))
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, torch.softmax(x, dim=1), WHAT)
    assert "sum of the whole tensor" not in caught.value.message.en
