"""Exercise 9: concat_features as torch.cat([b, a], dim=1) (the operands swapped) was told "b's
features first" with no diagnosis, and torch.cat([b, a]) (dim 0 as well) was told "b's rows
were put under a's", the other way round. The swapped order is now named
(`join-order-swapped`) where the values show it, and the rows on top are read from the
values."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX09 = hidden_tests("exercise-09")


def _failure(got, a, b):
    want = torch.cat([a, b], dim=1)
    with pytest.raises(CheckFailed) as caught:
        EX09._check_concat(got, a, b, want, "concat_features(a, b)")
    return caught.value


@given(n=st.integers(1, 5), p=st.integers(1, 4), q=st.integers(1, 4), seed=st.integers(0, 999))
def test_the_swapped_operands_are_named(n, p, q, seed):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(n, p, generator=g), torch.randn(n, q, generator=g)
    failure = _failure(torch.cat([b, a], dim=1), a, b)
    assert "join_order_swapped" in failure.evidence
    assert "torch.cat([a, b], dim=1)" in failure.message.en


@given(n=st.integers(1, 5), p=st.integers(1, 4), seed=st.integers(0, 999))
def test_other_wrong_values_are_not_told_the_order(n, p, seed):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(n, p, generator=g), torch.randn(n, p, generator=g)
    for wrong in (torch.cat([a, a], dim=1), torch.cat([a, -b], dim=1), torch.cat([b, b], dim=1)):
        assert "join_order_swapped" not in _failure(wrong, a, b).evidence


@given(n=st.integers(1, 5), p=st.integers(1, 4), seed=st.integers(0, 999))
def test_rows_joined_are_told_which_went_on_top(n, p, seed):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(n, p, generator=g), torch.randn(n, p, generator=g)
    swapped = _failure(torch.cat([b, a]), a, b)
    assert "a's rows were put under b's" in swapped.message.en
    assert "a 的各行被接在了 b 的下面" in swapped.message.zh
    right_order = _failure(torch.cat([a, b]), a, b)
    assert "b's rows were put under a's" in right_order.message.en
