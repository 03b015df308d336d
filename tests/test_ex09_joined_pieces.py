"""Exercise 9: split_heads as torch.stack(torch.split(x, heads, -1), dim=1) (split's number is a
piece's size, not the number of pieces) or torch.cat(x.chunk(heads, -1), dim=1) (the heads
joined end to end along the time steps) got only "The result has the wrong shape". Each is now
named where its values are that mistake (new diagnosis split-size-not-count; cat where stack
was due); the right answer and the other layouts are not."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX09 = hidden_tests("exercise-09")
SIZES = st.integers(1, 4)


def _x(b, t, h, d, seed):
    return torch.randn(b, t, h * d, generator=torch.Generator().manual_seed(seed))


def _evidence(got, x, heads) -> list[str]:
    try:
        EX09._joined_pieces(got, x, heads, "split_heads(x)")
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(b=SIZES, t=SIZES, h=SIZES, d=SIZES, seed=st.integers(0, 2**16))
def test_split_by_size_is_named_where_it_differs(b, t, h, d, seed):
    assume(h != d)
    x = _x(b, t, h, d, seed)
    got = torch.stack(torch.split(x, h, dim=-1), dim=1)
    assert "split_size_not_count" in _evidence(got, x, h)


@given(b=SIZES, t=SIZES, h=st.integers(2, 4), d=SIZES, seed=st.integers(0, 2**16))
def test_cat_of_the_chunks_is_named(b, t, h, d, seed):
    x = _x(b, t, h, d, seed)
    got = torch.cat(x.chunk(h, dim=-1), dim=1)
    assert _evidence(got, x, h) == ["wrong_shape", "cat_instead_of_stack"]


@given(b=SIZES, t=SIZES, h=SIZES, d=SIZES, seed=st.integers(0, 2**16))
def test_the_answer_and_other_layouts_are_told_neither(b, t, h, d, seed):
    x = _x(b, t, h, d, seed)
    right = x.reshape(b, t, h, d).transpose(1, 2)
    for got in (right, x.reshape(b, h, t, d), x.reshape(b, t, d, h).permute(0, 3, 1, 2)):
        assert _evidence(got, x, h) == []


def test_the_split_message_says_what_split_counts():
    x = _x(2, 3, 4, 5, 1)
    with pytest.raises(CheckFailed) as caught:
        EX09._joined_pieces(torch.stack(torch.split(x, 4, dim=-1), dim=1), x, 4, "split_heads(x)")
    assert "split's number is a piece's size" in caught.value.message.en
    assert "split 的数字是每块的大小" in caught.value.message.zh


@given(n=SIZES, p=SIZES, seed=st.integers(0, 2**16))
def test_a_plus_b_is_named_and_the_join_is_not(n, p, seed):
    g = torch.Generator().manual_seed(seed)
    a, b = torch.randn(n, p, generator=g), torch.randn(n, p, generator=g)
    want = torch.cat([a, b], dim=1)
    with pytest.raises(CheckFailed) as caught:
        EX09._check_concat(a + b, a, b, want, "concat_features(a, b)")
    assert "added_not_joined" in caught.value.evidence
    EX09._check_concat(want.clone(), a, b, want, "concat_features(a, b)")
