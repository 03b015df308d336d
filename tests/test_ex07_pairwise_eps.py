"""Exercise 07: a distance matrix whose diagonal is one small number is told an epsilon was
added before sqrt, now with its own diagnosis (`epsilon-before-sqrt`); but where the number
is F.pairwise_distance's own eps (1e-6 added to every coordinate of the difference, so
sqrt(d) * 1e-6), the learner added nothing, and "add nothing" would mislead: that is named
`pairwise-distance-eps`, with the fix to compute the distances without it."""

from __future__ import annotations

import importlib.util
import types

import torch
import torch.nn.functional as F
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.catalog import project_root
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


def _values_diagnosis(pairwise):
    learner = types.SimpleNamespace(pairwise_distance=pairwise)
    try:
        EX07.test_pairwise_values(learner, EX07_REFERENCE, "cpu", torch.Generator().manual_seed(0))
    except CheckFailed as failed:
        entry = match(DiagnosisCatalog.load(), failed.evidence, None)
        return None if entry is None else entry.id
    return "passed"


def _reference() -> types.ModuleType:
    """The reference solution, whose distances the hidden test compares with."""
    path = project_root() / "solutions" / "exercise-07" / "exercise-07.py"
    spec = importlib.util.spec_from_file_location("exercise_07_reference", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


EX07_REFERENCE = _reference()


@settings(deadline=None, max_examples=8)
@given(module=st.booleans(), swapped=st.booleans())
def test_f_pairwise_distance_values_are_named_for_its_own_eps(module, swapped):
    """The values test (float64 distances, where 1e-6 is far above the tolerance) names it
    too, whichever way round the rows are given, not a bare "values differ"."""

    def pairwise(x):
        a, b = x[:, None, :], x[None, :, :]
        if swapped:
            a, b = b, a
        return torch.nn.PairwiseDistance()(a, b) if module else F.pairwise_distance(a, b)

    assert _values_diagnosis(pairwise) == "pairwise-distance-eps"


@settings(deadline=None, max_examples=20)
@given(
    eps=st.sampled_from([1e-9, 1e-7, 1e-5, 1e-4, 1e-3]),
    where=st.sampled_from(["inside", "outside", "scaled"]),
)
def test_values_off_by_another_small_amount_are_not_told_pairwise_eps(eps, where):
    """Distances off by a small amount of the learner's own (an epsilon under the root, added
    to the distance, or a scale) are never told F.pairwise_distance's eps: its story needs the
    values to land on its formula, not just near the answer."""

    def pairwise(x):
        d = (x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1)
        if where == "inside":
            return (d + eps).sqrt()
        if where == "outside":
            return d.sqrt() + eps
        return d.sqrt() * (1 + eps)

    assert _values_diagnosis(pairwise) != "pairwise-distance-eps"


def test_right_distances_pass_the_values_test():
    for pairwise in (_summed, lambda x: torch.cdist(x, x)):
        assert _values_diagnosis(pairwise) == "passed"
