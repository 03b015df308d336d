"""An array was due (exercise 10's ``to_numpy``) and a tensor, a list or a number came back
(``.detach().cpu()`` without ``.numpy()``, ``.numpy().tolist()``, ``.item()``): the message
named the type alone, with no diagnosis. Each is now named "The result is not a NumPy array",
with the sentence for what came back and the call that makes the array. None and a method keep
their own, more specific stories."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.diagnose import DiagnosisCatalog, match
from grader.testing.checks import CheckFailed, expect_array

CATALOGUE = DiagnosisCatalog.load()
NUMBERS = st.one_of(st.booleans(), st.integers(), st.floats(allow_nan=True))


def _failure(value):
    with pytest.raises(CheckFailed) as caught:
        expect_array(value, "to_numpy(t)")
    failure = caught.value
    entry = match(CATALOGUE, tuple(failure.evidence), None)
    return failure, entry.id if entry is not None else None


@given(shape=st.lists(st.integers(0, 3), max_size=3))
def test_a_tensor_is_told_to_call_numpy(shape):
    failure, diagnosis = _failure(torch.zeros(shape))
    assert diagnosis == "not-an-array"
    assert ".numpy() makes one" in failure.message.en and ".numpy()" in failure.message.zh


@given(value=st.recursive(NUMBERS, lambda inner: st.lists(inner, max_size=3), max_leaves=8))
def test_a_list_or_a_number_is_told_what_made_it(value):
    failure, diagnosis = _failure(value)
    assert diagnosis == "not-an-array"
    said = ".tolist()" if isinstance(value, list) else ".item()"
    assert said in failure.message.en and said in failure.message.zh


def test_a_tuple_is_a_container_too():
    failure, diagnosis = _failure((1.0, 2.0))
    assert diagnosis == "not-an-array" and ".tolist()" in failure.message.en


@pytest.mark.parametrize(
    ("value", "diagnosis"), [(None, "nothing-returned"), ("text", "not-an-array")]
)
def test_other_values_keep_their_story(value, diagnosis):
    failure, found = _failure(value)
    assert found == diagnosis
    assert ".tolist()" not in failure.message.en and ".item()" not in failure.message.en


def test_an_array_passes():
    import numpy as np

    array = np.zeros(3, dtype=np.float32)
    assert expect_array(array, "to_numpy(t)") is array
