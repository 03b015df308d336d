"""Exercise 3: corner_copy as x[0:k - 1, 0:k - 1].clone() (a slice's end read as included) got
only "The result has the wrong shape". A block one row and one column short, or long
(x[:k + 1, :k + 1]), is now named with the rule that a slice's end is excluded; the right block,
and blocks that are neither, are not."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX03 = hidden_tests("exercise-03")
WHAT = "corner_copy(x, k)"


def _evidence(got, x, k) -> list[str]:
    try:
        EX03._block_off_by_one(got, x, k, WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(h=st.integers(1, 6), w=st.integers(1, 6), k=st.integers(0, 6), seed=st.integers(0, 999))
def test_one_short_or_long_is_named_and_the_block_is_not(h, w, k, seed):
    x = torch.randn(h, w, generator=torch.Generator().manual_seed(seed))
    assert _evidence(x[:k, :k].clone(), x, k) == []
    for j in (k - 1, k + 1):
        if 0 <= j <= min(h, w) and x[:j, :j].shape != x[:k, :k].shape:
            assert "slice_end_off_by_one" in _evidence(x[:j, :j].clone(), x, k)
    assert "slice_end_off_by_one" not in _evidence(x[:k].clone(), x, k)


def test_the_message_says_the_end_is_excluded():
    x = torch.randn(5, 6)
    with pytest.raises(CheckFailed) as caught:
        EX03._block_off_by_one(x[:2, :2].clone(), x, 3, WHAT)
    assert "A slice's end is excluded" in caught.value.message.en
    assert "切片不包含终点" in caught.value.message.zh
