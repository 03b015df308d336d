"""Exercise 6: drop_dim as x.select(dim, 0) (no size check) was told "removing other dimensions
of size 1 instead (x.squeeze() removes all of them)" for x of shape (2, 3), which has none: any
result with fewer dims got the squeeze() story. It is now told only where the result has
x.squeeze()'s shape; a result that is x without dimension `dim` is told that dim was removed
anyway (a slice or a reduction), which no size-1 story explains."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX06 = hidden_tests("exercise-06")


@st.composite
def _not_one(draw):
    shape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=4)))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    assume(shape[dim] != 1)
    return torch.zeros(shape), dim


def _evidence(drop_dim, x, dim) -> list[str]:
    learner = SimpleNamespace(drop_dim=drop_dim)
    with pytest.raises(CheckFailed) as caught:
        EX06._expect_value_error(learner, x, dim, "x")
    return list(caught.value.evidence)


@given(case=_not_one())
def test_a_slice_of_the_dim_is_told_removed_anyway(case):
    x, dim = case
    evidence = _evidence(lambda x, dim: x.select(dim, 0), x, dim)
    assert "squeezed_too_much" not in evidence or x.squeeze().dim() < x.dim()
    if tuple(x.select(dim, 0).shape) != tuple(x.squeeze().shape):
        assert "dim_removed_anyway" in evidence
        assert "squeezed_too_much" not in evidence


@given(case=_not_one())
def test_squeeze_all_is_still_told_squeeze(case):
    x, dim = case
    assume(x.squeeze().dim() < x.dim())
    assert "squeezed_too_much" in _evidence(lambda x, dim: x.squeeze(), x, dim)


def test_the_two_by_three_case_is_not_told_squeeze():
    evidence = _evidence(lambda x, dim: x.select(dim, 0), torch.zeros(2, 3), 0)
    assert evidence == ["no_exception", "dim_removed_anyway"]
