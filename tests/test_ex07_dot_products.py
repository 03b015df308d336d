"""Exercise 7: pairwise_distance as torch.sqrt(x @ x.T) (or that clamped at 0) was told the
general NaN story, whose fix ends "a squared distance is clamped before sqrt": the learner
clamps, the NaN goes, the values stay wrong. Where every value is the square root of the rows'
dot products, the values test now says the dot products are no squared distances."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")
CATALOGUE = DiagnosisCatalog.load()
TOL = {"rtol": 1e-4, "atol": 1e-4}


def _points(n: int, d: int, seed: int) -> torch.Tensor:
    return torch.randn(n, d, generator=torch.Generator().manual_seed(seed))


def _distances(x: torch.Tensor) -> torch.Tensor:
    return ((x[:, None] - x[None]) ** 2).sum(-1).sqrt()


def _judged(yours: torch.Tensor, x: torch.Tensor) -> CheckFailed | None:
    mine, want = yours.clone(), _distances(x)
    mine.diagonal().zero_()
    want.diagonal().zero_()
    try:
        EX07._not_sqrt_of_dot_products(mine, want, x, "pairwise_distance(x)", **TOL)
    except CheckFailed as exc:
        return exc
    return None


@given(n=st.integers(3, 12), d=st.integers(1, 6), seed=st.integers(0, 2**16), clamp=st.booleans())
def test_square_roots_of_dot_products_are_named(n, d, seed, clamp):
    x = _points(n, d, seed)
    dots = x @ x.T
    yours = torch.sqrt(dots.clamp_min(0) if clamp else dots)
    if bool(torch.isclose(yours, _distances(x), **TOL, equal_nan=True).all()):
        return  # no pair tells them apart (every dot product is a squared distance too)
    failed = _judged(yours, x)
    assert failed is not None
    assert "sqrt_of_dot_products" in failed.evidence
    assert "x @ x.T" in failed.message.en and "点积" in failed.message.zh
    assert match(CATALOGUE, tuple(failed.evidence), None).id == "dot-products-not-distances"


@pytest.mark.parametrize(
    "wrong",
    [
        lambda x: _distances(x),  # right
        lambda x: _distances(x) ** 2,  # squared distances
        lambda x: (x[:, None] - x[None]).abs().sum(-1),  # Manhattan
        lambda x: torch.cdist(x, x),  # right, another way
        lambda x: x @ x.T,  # dot products, no sqrt: another story
    ],
)
def test_other_answers_are_not_called_dot_products(wrong):
    x = _points(6, 3, 7)
    assert _judged(wrong(x), x) is None
