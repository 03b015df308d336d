"""Exercise 6: drop_dim returning x[0] (or x[:, 0], x[..., 0]) after checking x.shape[dim]
got only "the result has the wrong shape". Where the result is, shape and values, the first
slice of exactly one other dimension than dim, it is now named (`index-not-dim`), with the
index and, for a negative dim, the dimension it counts to. Meta results, with no values to
tell, are not."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX06 = hidden_tests("exercise-06")


@st.composite
def cases(draw):
    shape = draw(st.lists(st.integers(1, 4), min_size=2, max_size=4))
    dim = draw(st.integers(-len(shape), len(shape) - 1))
    shape[dim] = 1
    k = draw(st.integers(0, len(shape) - 1).filter(lambda k: k != dim % len(shape)))
    return tuple(shape), dim, k


def _run(got, x, dim):
    wanted = tuple(x.squeeze(dim).shape)
    try:
        EX06._other_dim_indexed(got, x, dim, wanted, "drop_dim(x, dim)")
    except CheckFailed as caught:
        return caught
    return None


@given(case=cases())
def test_another_dims_first_slice_is_named(case):
    shape, dim, k = case
    x = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
    got = x.select(k, 0)
    if tuple(got.shape) == tuple(x.squeeze(dim).shape):
        return  # the same shape as the right answer: the values test judges it
    same = [
        j
        for j in range(x.dim())
        if j != dim % x.dim()
        and x.select(j, 0).shape == got.shape
        and torch.equal(x.select(j, 0), got)
    ]
    caught = _run(got, x, dim)
    if len(same) > 1:  # x[:, :, 0] and x[..., 0] of a (1, 2, 1, 1): which index is not known
        assert caught is None
        return
    assert caught is not None and "other_dim_indexed" in caught.evidence
    assert f"dimension {k}" in caught.message.en


@given(case=cases())
def test_the_right_answer_and_other_shapes_are_not_told(case):
    shape, dim, _ = case
    x = torch.arange(float(torch.Size(shape).numel())).reshape(shape)
    assert _run(x.squeeze(dim), x, dim) is None
    assert _run(x.squeeze(), x, dim) is None  # other size-1 dims gone too: squeezed_too_much's
    assert _run(x.flatten(), x, dim) is None
    assert _run(x.squeeze(dim) + 1, x, dim) is None


def test_meta_is_not_told():
    x = torch.empty(1, 3, 1, 4, device="meta")
    assert _run(x[0], x, 2) is None


def test_a_negative_dim_says_where_it_counts_to():
    x = torch.randn(4, 1)
    caught = _run(x[0], x, -1)
    assert caught is not None
    assert "x[0]" in caught.message.en and "dimension 1" in caught.message.en
    assert "第 1 维" in caught.message.zh
