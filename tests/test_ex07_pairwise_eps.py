"""Exercise 07: a distance matrix whose diagonal is one small number is told an epsilon was
added before sqrt, now with its own diagnosis (`epsilon-before-sqrt`); but where the number
is F.pairwise_distance's own eps (1e-6 added to every coordinate of the difference, so
sqrt(d) * 1e-6), the learner added nothing, and "add nothing" would mislead: that is named
`pairwise-distance-eps`, with the fix to compute the distances without it."""

from __future__ import annotations

import types

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")


def _diagnosis(pairwise):
    learner = types.SimpleNamespace(pairwise_distance=pairwise)
    try:
        EX07.test_pairwise_diagonal_exactly_zero(learner, "cpu", torch.Generator().manual_seed(0))
    except CheckFailed as failed:
        entry = match(DiagnosisCatalog.load(), failed.evidence, None)
        return None if entry is None else entry.id
    return "passed"


def _summed(x, eps=0.0):
    return ((x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1) + eps).sqrt()


@settings(deadline=None, max_examples=20)
@given(eps=st.sampled_from([1e-12, 1e-10, 1e-8, 1e-6, 1e-4]))
def test_an_epsilon_of_the_learners_own_is_named(eps):
    assert _diagnosis(lambda x: _summed(x, eps)) == "epsilon-before-sqrt"


@settings(deadline=None, max_examples=10)
@given(module=st.booleans())
def test_f_pairwise_distance_is_named_for_its_own_eps(module):
    def pairwise(x):
        a, b = x[:, None, :], x[None, :, :]
        return torch.nn.PairwiseDistance()(a, b) if module else F.pairwise_distance(a, b)

    assert _diagnosis(pairwise) == "pairwise-distance-eps"


def test_the_right_answer_passes():
    assert _diagnosis(_summed) == "passed"
