"""Exercise 4: an index of shape (1, N) (labels.unsqueeze(0)) read or wrote every label in
row 0. pick's answer (gather, scores[0][labels], torch.take) was told so with no diagnosis, and
one_hot's (every 1 scattered into row 0) got only "values differ". Both are now named
`index-one-row`, where the values are those of row 0 and not the right ones."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX04 = hidden_tests("exercise-04")
CATALOG = DiagnosisCatalog.load()


@st.composite
def labels_and_classes(draw):
    classes = draw(st.integers(1, 6))
    labels = draw(st.lists(st.integers(0, classes - 1), min_size=2, max_size=8))
    return torch.tensor(labels), classes


def _right(labels, classes):
    return torch.zeros(len(labels), classes).scatter_(1, labels.unsqueeze(1), 1.0)


@given(case=labels_and_classes())
def test_every_one_in_row_zero_is_named(case):
    labels, classes = case
    got = torch.zeros(len(labels), classes).scatter_(1, labels.unsqueeze(0), 1.0)
    want = _right(labels, classes)
    if torch.equal(got, want):
        return  # nothing wrong to name (labels all 0 on one class)
    with pytest.raises(CheckFailed) as caught:
        EX04._scattered_into_row_zero(got, labels, classes, want, "one_hot(labels, C)")
    assert "scatter_index_one_row" in caught.value.evidence
    entry = match(CATALOG, caught.value.evidence, None)
    assert entry is not None and entry.id == "index-one-row"


@given(case=labels_and_classes())
def test_other_one_hots_are_not_told_row_zero(case):
    labels, classes = case
    want = _right(labels, classes)
    down_rows = None
    if int(labels.max()) < len(labels):
        down_rows = torch.zeros(len(labels), classes).scatter_(0, labels.unsqueeze(1), 1.0)
    for got in (want, want.flip(0), torch.zeros_like(want), down_rows):
        if got is None:
            continue
        row_zero = torch.zeros_like(want).scatter_(1, labels.unsqueeze(0), 1.0)
        if torch.equal(got, row_zero) and not torch.equal(got, want):
            continue  # these values are row 0's
        EX04._scattered_into_row_zero(got, labels, classes, want, "one_hot(labels, C)")


def test_the_gather_tag_names_the_same_diagnosis():
    entry = match(CATALOG, ("values_differ", "gather_index_one_row"), None)
    assert entry is not None and entry.id == "index-one-row"
    assert "torch.take" in entry.why.en
