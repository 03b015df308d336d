"""Exercise 8: three slips got a story that missed them or none: column_means as
x.sum(dim=0) // n (floor division: whole numbers) got "values differ"; softmax_rows returning
x - logsumexp(x) (the log of the softmax) got "values differ"; and a softmax that subtracts
x.max(dim=1, keepdim=True)[1] (the positions, not the values) was told to "subtract each row's
maximum", which its author believes it does. Each is now named where its evidence holds: the
values for the first two, and for the third the learner's softmax_rows reading a max's
indices, with exp() overflowing as the naive softmax's does."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, example, given
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX08 = hidden_tests("exercise-08")
WHAT = Text("f(x)", "f(x)")


@given(n=st.integers(1, 5), d=st.integers(1, 4), seed=st.integers(0, 999))
def test_floor_divided_means_are_named(n, d, seed):
    x = 3 * torch.randn(n, d, generator=torch.Generator().manual_seed(seed))
    want = x.mean(dim=0)
    EX08._floor_divided(want.clone(), want, x, WHAT, 1e-5, 1e-5)
    floored = torch.div(x.sum(dim=0), n, rounding_mode="floor")
    assume(not torch.allclose(floored, want, rtol=1e-5, atol=1e-5))
    with pytest.raises(CheckFailed) as caught:
        EX08._floor_divided(floored, want, x, WHAT, 1e-5, 1e-5)
    assert "floor_division" in caught.value.evidence


@given(n=st.integers(1, 4), d=st.integers(2, 5), seed=st.integers(0, 999))
def test_the_log_of_the_softmax_is_named(n, d, seed):
    x = 2 * torch.randn(n, d, generator=torch.Generator().manual_seed(seed))
    want = torch.softmax(x, dim=1)
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(x - torch.logsumexp(x, dim=1, keepdim=True), x, want, WHAT)
    assert "log_softmax_returned" in caught.value.evidence
    EX08._check_softmax(want.clone(), x, want, WHAT)


INDICES = [
    "def softmax_rows(x):\n    e = (x - x.max(dim=1, keepdim=True)[1]).exp()\n    return e\n",
    "def softmax_rows(x):\n    m = torch.max(x, 1, keepdim=True).indices\n    return m\n",
    "def softmax_rows(x):\n    return (x - x.argmax(dim=1, keepdim=True)).exp()\n",
]
VALUES = [
    "def softmax_rows(x):\n    e = (x - x.max(dim=1, keepdim=True)[0]).exp()\n    return e\n",
    "def softmax_rows(x):\n    return (x - x.max(dim=1, keepdim=True).values).exp()\n",
    "def softmax_rows(x):\n    return x.exp()\n\n\ndef row_max(x):\n    return x.max(1)[1]\n",
    "def softmax_rows(x):\n    return x.exp(\n",
]


@pytest.mark.parametrize("source", INDICES)
def test_indices_of_a_max_are_seen(source):
    assert EX08._max_indices_in(source)


@pytest.mark.parametrize("source", VALUES)
def test_values_of_a_max_are_not(source):
    assert not EX08._max_indices_in(source)


def test_an_overflow_with_indices_is_told_indices_and_without_is_told_the_maximum():
    x = torch.tensor([[1000.0, 1001.0, 999.0], [1000.0, 1000.0, 1000.0]])
    want = torch.softmax(x, dim=1)
    e = (x - x.max(dim=1, keepdim=True)[1]).exp()
    got = e / e.sum(dim=1, keepdim=True)
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, want, WHAT, indices_used=True)
    assert "max_indices_subtracted" in caught.value.evidence
    assert ".values" in caught.value.message.en and ".values" in caught.value.message.zh
    with pytest.raises(CheckFailed) as caught:
        EX08._check_softmax(got, x, want, WHAT)
    assert "max_indices_subtracted" not in caught.value.evidence


def _eps_evidence(mine, x) -> list[str]:
    try:
        EX08._epsilon_in_sum(mine, x, WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(
    n=st.integers(1, 4),
    d=st.integers(1, 5),
    eps=st.sampled_from([1e-10, 1e-8, 1e-6, 1e-4]),
    seed=st.integers(0, 999),
)
# two values of a float32 answer whose rounding implies the same small eps
@example(n=1, d=2, eps=1e-10, seed=577)
def test_an_epsilon_in_the_sum_is_named_and_rounding_is_not(n, d, eps, seed):
    x = 2 * torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    e = (x - x.max(dim=1, keepdim=True).values).exp()
    assert "epsilon_in_denominator" in _eps_evidence(e / (e.sum(dim=1, keepdim=True) + eps), x)
    assert _eps_evidence(torch.softmax(x, dim=1), x) == []
    in_float32 = torch.softmax(x.float(), dim=1).double()
    assert _eps_evidence(in_float32, x) == []
