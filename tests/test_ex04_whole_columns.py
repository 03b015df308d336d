"""Exercise 4: one_hot as out[:, labels] = 1 sets a 1 in every column some label names, in every
row, and got only "24 of 40 values differ". It is now named index-all-pairs, for any labels
where it differs from the one-hot answer, and never for the right one."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX04 = hidden_tests("exercise-04")


@given(classes=st.integers(1, 6), data=st.data())
def test_whole_columns_are_named_and_a_one_hot_is_not(classes, data):
    labels = torch.tensor(data.draw(st.lists(st.integers(0, classes - 1), min_size=1, max_size=8)))
    n = labels.shape[0]
    want = torch.zeros(n, classes)
    want[torch.arange(n), labels] = 1
    EX04._whole_columns(want.clone(), labels, classes, want, "one_hot(labels)")  # nothing said
    columns = torch.zeros(n, classes)
    columns[:, labels] = 1
    if torch.equal(columns, want):
        return  # one row, or every label the same: the two agree
    with pytest.raises(CheckFailed) as caught:
        EX04._whole_columns(columns, labels, classes, want, "one_hot(labels)")
    assert "index_all_pairs" in caught.value.evidence
