"""Exercise 19: a validation size rounded another way than Python's round() (int(), math.ceil,
int(x + 0.5), the training size rounded) is explained, and named ``split-size-not-round``, only
where that way alone gives the learner's size: never with a way the learner did not use. Train
and validation returned the other way round is named ``split-parts-swapped``."""

from __future__ import annotations

import math

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX19 = hidden_tests("exercise-19")

WAYS = {
    "int() truncates": lambda n, f: int(n * f),
    "math.ceil() rounds up": lambda n, f: math.ceil(n * f),
    "rounds halves up": lambda n, f: math.floor(n * f + 0.5),
    "rounds the training size": lambda n, f: n - round(n * (1 - f)),
}


def _split(n, k):
    order = torch.randperm(n, generator=torch.Generator().manual_seed(n))
    return order[k:], order[:k]


@settings(max_examples=300, deadline=None)
@given(n=st.integers(0, 300), eighths=st.integers(0, 8), way=st.sampled_from(sorted(WAYS)))
def test_a_way_of_rounding_is_named_only_where_it_alone_gives_the_size(n, eighths, way):
    f = eighths / 8
    k = WAYS[way](n, f)
    if not 0 <= k <= n or k == round(n * f):
        return
    with pytest.raises(CheckFailed) as failed:
        EX19._check_partition(_split(n, k), n, f, 0)
    others = [w for w in WAYS if w != way and WAYS[w](n, f) == k]
    named = "split_size_rounded_otherwise" in failed.value.evidence
    if "split_swapped" in failed.value.evidence:
        return  # the sizes the other way round: that story is told instead
    assert named == (not others), (n, f, way, others)
    if named:
        assert way in failed.value.message.en
    for other in WAYS:
        if other != way:
            assert other not in failed.value.message.en


@pytest.mark.parametrize(
    "tag, entry",
    [
        ("split_size_rounded_otherwise", "split-size-not-round"),
        ("split_swapped", "split-parts-swapped"),
        ("other_library_rng", "split-not-from-torch-generator"),
        ("bad_grad_inverted", "bad-grad-check-inverted"),
        ("first_parameter_only", "bad-grad-first-parameter-only"),
        ("loss_limited_not_gradients", "loss-limited-not-gradients"),
        ("empty_list_default_dtype", "empty-list-default-dtype"),
        ("tuple_became_list", "tuple-became-list"),
    ],
)
def test_each_evidence_has_its_diagnosis(tag, entry):
    found = match(DiagnosisCatalog.load(), ("values_differ", tag), None)
    assert found is not None and found.id == entry


@settings(max_examples=50, deadline=None)
@given(n=st.integers(2, 300))
def test_nothing_due_for_validation_is_never_told_swapped(n):
    # (perm[:-0], perm[-0:]) and (perm[:0], perm[0:]) both give (empty, everything) at k = 0
    order = torch.randperm(n, generator=torch.Generator().manual_seed(n))
    with pytest.raises(CheckFailed) as failed:
        EX19._check_partition((order[:0], order), n, 0.0, 0)
    assert "split_swapped" not in failed.value.evidence
    assert "other way round" not in failed.value.message.en


@settings(max_examples=50, deadline=None)
@given(n=st.integers(4, 300), eighths=st.integers(1, 3))
def test_swapped_parts_are_told_swapped(n, eighths):
    k = round(n * eighths / 8)
    if k <= 0 or abs(n - 2 * k) <= 1:
        return
    order = torch.randperm(n, generator=torch.Generator().manual_seed(n))
    with pytest.raises(CheckFailed) as failed:
        EX19._check_partition((order[:k], order[k:]), n, eighths / 8, 0)
    assert "split_swapped" in failed.value.evidence
