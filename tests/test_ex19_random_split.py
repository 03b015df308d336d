"""Exercise 19: split_indices returning what torch.utils.data.random_split gives (two Subset
datasets) was told "not a plain tensor", with a fix about .item(), .tolist() and subclasses
that was no help. It is now named (`random-split-subsets`): the indices are subset.indices,
made a tensor with dtype=torch.long; other objects that are not tensors are not it."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.sandbox.codec import Opaque
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX19 = hidden_tests("exercise-19")


def _evidence(part):
    try:
        EX19._split((part, torch.arange(3)), "split_indices(5, 0.4, seed=0)")
    except CheckFailed as failed:
        return failed.evidence
    return ()


@given(module=st.sampled_from(["torch.utils.data.dataset.", "torch.utils.data.", ""]))
def test_a_subset_is_named(module):
    evidence = _evidence(Opaque(f"{module}Subset", "<Subset object at 0x1>"))
    assert match(DiagnosisCatalog.load(), tuple(evidence), None).id == "random-split-subsets"


@given(name=st.sampled_from(["Dataset", "TensorDataset", "SubsetRandomSampler", "generator"]))
def test_other_objects_are_not_it(name):
    evidence = _evidence(Opaque(name, f"<{name} object>"))
    assert "dataset_subset" not in evidence and "not_a_tensor" in evidence


def test_a_real_random_split_is_named_once_it_crosses():
    from torch.utils.data import random_split

    train, _ = random_split(range(5), [3, 2], generator=torch.Generator().manual_seed(0))
    name = f"{type(train).__module__}.{type(train).__qualname__}"
    assert "dataset_subset" in _evidence(Opaque(name, repr(train)))
