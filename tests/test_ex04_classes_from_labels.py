"""Exercise 4: a one-hot with as many columns as the labels' largest value plus one
(`torch.zeros(N, labels.max() + 1)`, `F.one_hot(labels)` without num_classes) was told so in
the message, but its diagnosis was the generic "The result has the wrong shape" ("Print .shape
after each step"): the evidence `num_classes_inferred` had no entry in the catalogue. It now
has one, `num-classes-from-labels`; the right one-hot is not told it."""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX04 = hidden_tests("exercise-04")


def _right(labels, classes):
    return F.one_hot(labels, classes).float()


ONE_HOTS = {
    "labels_max_plus_one": lambda labels, classes: torch.zeros(
        labels.shape[0], int(labels.max()) + 1
    ).scatter_(1, labels.unsqueeze(1), 1.0),
    "F_without_num_classes": lambda labels, classes: F.one_hot(labels).float(),
}


@pytest.mark.parametrize("name", sorted(ONE_HOTS))
@pytest.mark.parametrize("seed", range(5))
def test_classes_counted_from_the_labels_are_named(name, seed):
    learner = types.SimpleNamespace(one_hot=ONE_HOTS[name])
    reference = types.SimpleNamespace(one_hot=_right)
    with pytest.raises(CheckFailed) as caught:
        EX04.test_one_hot_values(learner, reference, "cpu", torch.Generator().manual_seed(seed))
    assert "num_classes_inferred" in caught.value.evidence
    entry = match(DiagnosisCatalog.load(), caught.value.evidence, None)
    assert entry is not None and entry.id == "num-classes-from-labels"
    assert "num_classes" in entry.fix.en and "num_classes" in entry.fix.zh


def test_the_right_one_hot_is_not_told_it():
    learner = types.SimpleNamespace(one_hot=_right)
    EX04.test_one_hot_values(learner, learner, "cpu", torch.Generator().manual_seed(0))
