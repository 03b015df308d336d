"""Exercise-02's nbytes: ``len(t) * t.element_size()`` is named as len() counting the first
dimension only, exactly when the learner's number is that product and it is wrong, and no
other wrong number is told so."""

from __future__ import annotations

import json
import types

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.conftest import run_fresh
from tests.hidden import hidden_tests
from tests.test_corpus import _GRADE, CORPUS

HIDDEN = hidden_tests("exercise-02")
REFERENCE = types.SimpleNamespace(nbytes=lambda t: t.numel() * t.element_size())


def _evidence(answer, t) -> tuple[str, ...] | None:
    """The evidence of _check_nbytes for a learner whose nbytes(t) answers ``answer``; None
    when the answer passes."""
    learner = types.SimpleNamespace(nbytes=lambda _: answer)
    try:
        HIDDEN._check_nbytes(learner, REFERENCE, t, "t")
    except CheckFailed as failed:
        return tuple(failed.evidence)
    return None


@given(
    shape=st.lists(st.integers(0, 6), min_size=0, max_size=4),
    dtype=st.sampled_from(HIDDEN.DTYPES),
    answer=st.one_of(st.just("len"), st.integers(0, 5000)),
)
def test_len_times_element_size_is_named_exactly_when_it_is_that_and_wrong(shape, dtype, answer):
    t = torch.zeros(shape, dtype=dtype)
    right = t.numel() * t.element_size()
    first = t.shape[0] * t.element_size() if t.dim() > 0 else None
    if answer == "len":
        if first is None:
            return  # len() of a 0-dimensional tensor raises: the learner's own error says so
        answer = first
    evidence = _evidence(answer, t)
    if answer == right:
        assert evidence is None
        return
    assert evidence is not None and "values_differ" in evidence
    fits = t.dim() > 1 and answer == first
    # the same number can also be 4 bytes per element (a (1, 2) float64: 8): that older story
    # is told then, and only one of the two
    four_bytes = answer == 4 * t.numel() and t.element_size() != 4
    # ... or an eighth of the bytes (a (1, 2, 2, 2) float32: 4): a learner's nbytes of another
    # tensor tells them apart, and this one answers the same number for every tensor, which is
    # neither (the test below: each real slip is told)
    eighth = right % 8 == 0 and answer == right // 8
    # ... or the element count, or 2 or 8 bytes per element (a (1, 2) float32: 4)
    fixed = any(answer == size * t.numel() and t.element_size() != size for size in (1, 2, 8))
    named = "len_instead_of_numel" in evidence
    assert named == (fits and not four_bytes and not eighth and not fixed), (
        shape,
        dtype,
        answer,
        evidence,
    )
    assert not (named and "assumed_element_size" in evidence)


@pytest.mark.parametrize(
    ("nbytes", "tag"),
    [
        (lambda t: len(t) * t.element_size(), "len_instead_of_numel"),
        (lambda t: t.numel() * t.element_size() // 8, "bytes_as_bits"),
        (lambda t: 4, None),
    ],
)
def test_a_number_both_the_len_product_and_an_eighth_is_told_by_another_tensor(nbytes, tag):
    t = torch.zeros(1, 2, 2, 2)  # its len product is 4 bytes, and so is an eighth of its 32
    learner = types.SimpleNamespace(nbytes=nbytes)
    with pytest.raises(CheckFailed) as caught:
        HIDDEN._check_nbytes(learner, REFERENCE, t, "t")
    told = {"len_instead_of_numel", "bytes_as_bits"} & set(caught.value.evidence)
    assert told == ({tag} if tag else set())


@pytest.mark.slow
def test_the_corpus_file_gets_the_len_diagnosis_on_both_nbytes_tests():
    file = "exercise-02/nbytes_len_times_size.py"
    graded = json.loads(run_fresh(_GRADE, args=(str(CORPUS), json.dumps([file]))))[file]
    assert {t["test"].split("[")[0] for t in graded} == {
        "test_nbytes_float32",
        "test_nbytes_every_dtype",
    }, graded
    assert {t["diagnosis"]["id"] for t in graded if t["diagnosis"]} == {"len-not-numel"}, graded
    assert all(t["diagnosis"] is not None for t in graded), graded


@pytest.mark.parametrize(
    ("nbytes", "tag"),
    [
        (lambda t: len(t) * t.element_size(), "len_instead_of_numel"),
        (lambda t: t.untyped_storage().nbytes(), "storage_bytes"),
        (lambda t: 16, None),
    ],
)
def test_a_number_both_the_len_product_and_the_storage_is_told_by_another_tensor(nbytes, tag):
    # an expanded (4, 1) float32: its storage holds 16 bytes, and its len product is 16 too;
    # which of the two the learner counted is read from their nbytes of another tensor, not
    # from the order of the checks
    t = torch.zeros(4, 1).expand(4, 3)
    learner = types.SimpleNamespace(nbytes=nbytes)
    with pytest.raises(CheckFailed) as caught:
        HIDDEN._check_nbytes(learner, REFERENCE, t, "t")
    told = {"len_instead_of_numel", "storage_bytes"} & set(caught.value.evidence)
    assert told == ({tag} if tag else set())


@given(
    rows=st.integers(1, 6),
    extra=st.integers(1, 6),
    dtype=st.sampled_from(HIDDEN.DTYPES),
    counts=st.sampled_from(["len", "storage"]),
)
def test_the_storage_of_a_view_and_the_len_product_are_each_named(rows, extra, dtype, counts):
    t = torch.zeros(rows + extra, 3, dtype=dtype)[:rows]
    nbytes = {
        "len": lambda t: len(t) * t.element_size(),
        "storage": lambda t: t.untyped_storage().nbytes(),
    }[counts]
    learner = types.SimpleNamespace(nbytes=nbytes)
    with pytest.raises(CheckFailed) as caught:
        HIDDEN._check_nbytes(learner, REFERENCE, t, "t")
    tag = {"len": "len_instead_of_numel", "storage": "storage_bytes"}[counts]
    assert tag in caught.value.evidence
