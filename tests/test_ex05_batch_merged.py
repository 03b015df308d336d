"""Exercise 5: to_sequence as images.permute(0, 2, 3, 1).reshape(-1, C) merges the batch into
the rows. With B = 1 it was told "a missing size-1 dimension (keepdim=True or unsqueeze was
due)", advice that fixes only B = 1. An answer holding the expected values in the expected
order under another shape is now named as that, and the merged batch as such."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX05 = hidden_tests("exercise-05")
WHAT = Text("to_sequence(images)", "to_sequence(images)")
dims = st.integers(1, 4)


@given(b=dims, c=dims, h=dims, w=dims)
def test_values_in_order_under_another_shape_are_named_by_what_was_merged(b, c, h, w):
    images = torch.randn(b, c, h, w)
    want = images.permute(0, 2, 3, 1).reshape(b, h * w, c)
    EX05._explain_sequence(want.clone(), images, want, WHAT)  # right: nothing said
    with pytest.raises(CheckFailed) as caught:
        EX05._explain_sequence(want.reshape(-1, c), images, want, WHAT)
    assert "batch_merged" in caught.value.evidence
    assert "keepdim" not in caught.value.message.en
    if (b, h * w * c) != (b * h * w, c):
        with pytest.raises(CheckFailed) as caught:
            EX05._explain_sequence(want.reshape(b, -1), images, want, WHAT)
        assert "reshaped_in_order" in caught.value.evidence
        assert "merged" not in caught.value.message.en


@given(a=dims, b=dims, seed=st.integers(0, 2**16))
def test_x_in_its_own_order_is_a_reshape_used_as_a_transpose(a, b, seed):
    """flatten_transposed as x.reshape(b, a).reshape(-1) (reshape taken for a transpose) got
    only "10 of 12 values differ"."""
    x = torch.randn(a, b, generator=torch.Generator().manual_seed(seed))
    want = x.t().reshape(-1)
    EX05._explain_flatten(want.clone(), x, want, WHAT)  # right: nothing said
    if torch.equal(x.reshape(-1), want):
        return  # a row or a column: its own order is the transposed one
    with pytest.raises(CheckFailed) as caught:
        EX05._explain_flatten(x.reshape(b, a).reshape(-1), x, want, WHAT)
    assert "reshape_not_permute" in caught.value.evidence
