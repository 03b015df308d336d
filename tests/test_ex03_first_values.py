"""Exercise 3: corner_copy as x.clone().resize_(k, k) (or x.flatten()[:k * k].reshape(k, k)),
the first k * k values of x regrouped, got only "6 of 9 values differ". It is now named where
the answer is exactly that and the top-left block is not (a single-row or k-column x makes the
two the same); the right block is never told it."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX03 = hidden_tests("exercise-03")
WHAT = "corner_copy(x, k)"


def _evidence(got, x, k) -> list[str]:
    try:
        EX03._first_values(got, x, k, WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(h=st.integers(1, 6), w=st.integers(1, 6), k=st.integers(0, 6), seed=st.integers(0, 999))
def test_the_first_values_regrouped_are_named_and_the_block_is_not(h, w, k, seed):
    k = min(k, h, w)
    x = torch.randn(h, w, generator=torch.Generator().manual_seed(seed))
    block = x[:k, :k].clone()
    assert _evidence(block, x, k) == []
    regrouped = x.clone().resize_(k, k)
    assert torch.equal(regrouped, x.flatten()[: k * k].reshape(k, k))
    named = "first_values_regrouped" in _evidence(regrouped, x, k)
    assert named == (k > 0 and not torch.equal(regrouped, block))
