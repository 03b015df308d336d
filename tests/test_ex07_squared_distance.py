"""Exercise 07: pairwise_distance returning the squared distances (no sqrt, or
torch.cdist(x, x) ** 2) got only "20 of 25 values differ". It is now named where every value is
the squared distance, and never for the distances themselves."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")


def _told(mine, x):
    want = torch.cdist(x.double(), x.double())
    want.diagonal().zero_()
    try:
        EX07._another_distance(mine, want, x, "pairwise_distance(x)", 1e-4, 1e-4)
    except CheckFailed as caught:
        return caught.message.en
    return ""


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(2, 6), d=st.integers(2, 4))
def test_squared_distances_are_named_and_only_they(seed, n, d):
    x = torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64) * 3
    diff = x[:, None] - x[None]
    assert "squared Euclidean distance" in _told((diff**2).sum(-1), x)
    assert _told((diff**2).sum(-1).sqrt(), x) == ""
