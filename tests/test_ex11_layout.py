"""Exercise 11: prepare_batch returning one-hot labels (F.one_hot) where class indices were
asked for, or the features transposed, got only "should have shape (6,), but yours has shape
(6, 4)". A shape its values explain is now named (``layout_story``): (d, n) holding the expected
(n, d) swapped round, or (n, C) rows of 0 but for a 1 at each sample's class index."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX11 = hidden_tests("exercise-11")


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 12), d=st.integers(1, 12), seed=st.integers(0, 2**16))
def test_transposed_features_are_named_where_the_shape_tells_it(n, d, seed):
    g = torch.Generator().manual_seed(seed)
    want = torch.randn(n, d, generator=g)
    story = EX11.layout_story(want.T.clone(), want)
    if n != d:
        assert story is not None and story[0] == "features_transposed"
        assert f"({d}, {n})" in story[1] and "no .T" in story[1]
    else:
        assert story is None  # a square batch: the shape says nothing
    assert EX11.layout_story(want.clone(), want) is None
    if n != d and n * d > 1:
        other = torch.randn(d, n, generator=g)  # the right shape swapped, other values
        assume(not torch.allclose(other.T, want))
        assert EX11.layout_story(other, want) is None


@settings(max_examples=200, deadline=None)
@given(
    labels=st.lists(st.integers(0, 5), min_size=1, max_size=20),
    extra=st.integers(0, 3),
    as_float=st.booleans(),
)
def test_one_hot_labels_are_named_only_where_each_row_is_its_sample_class(labels, extra, as_float):
    want = torch.tensor(labels, dtype=torch.int64)
    hot = F.one_hot(want, num_classes=max(labels) + 1 + extra)
    hot = hot.float() if as_float else hot
    assume(hot.shape[1] > 1)
    story = EX11.layout_story(hot, want)
    assert story is not None and story[0] == "labels_one_hot"
    assert "torch.from_numpy(labels).long()" in story[1] and "one_hot" in story[2]
    # another class marked in the first row: not the one-hot of these labels
    wrong = hot.clone()
    wrong[0] = 0
    wrong[0, (labels[0] + 1) % hot.shape[1]] = 1
    assert EX11.layout_story(wrong, want) is None
    assert EX11.layout_story(hot * 2, want) is None  # not 0 and 1
