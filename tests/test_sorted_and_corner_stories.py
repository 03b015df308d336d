"""An answer that is the expected one sorted (exercise 03's positives as
torch.sort(x[x > 0]).values) and exercise 03's corner_copy as another corner of x
(x[-k:, -k:]) got only "values differ". Each is now said where the answer is that, and only
there."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing import relations
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX03 = hidden_tests("exercise-03")


@pytest.fixture(autouse=True)
def _fresh_inputs():
    relations.forget()
    yield
    relations.forget()


@settings(max_examples=40, deadline=None)
@given(values=st.lists(st.integers(-50, 50), min_size=1, max_size=9))
def test_a_sorted_answer_is_named_only_where_sorting_changed_it(values):
    want = torch.tensor(values, dtype=torch.float64)
    for descending in (False, True):
        got = want.sort(descending=descending).values
        found = relations.relate(got, want)
        told = found is not None and "sorted" in found.en
        changed = not torch.equal(got, want)
        if not changed or len(set(values)) < 3:
            assert not told
        else:  # said, unless another relation holds too ([1, 2, 0] sorted: also a shift)
            a, b = relations._plain(got), relations._plain(want)
            others = [
                f for f in relations._FINDERS if f is not relations._sorted and f(a, b, 1e-4, 1e-5)
            ]
            assert told != bool(others) and (told or found is None), (values, found, others)
        if told:
            assert found.tag == "sorted_not_in_order" and "排序" in found.zh


def _corner_story(got, x, k):
    try:
        EX03._other_corner(got, x, k, "corner_copy(x, k)")
    except CheckFailed as caught:
        return caught.message.en
    return ""


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), rows=st.integers(1, 5), cols=st.integers(1, 5))
def test_another_corner_is_named_and_the_top_left_never(seed, rows, cols):
    x = torch.randn(rows, cols, generator=torch.Generator().manual_seed(seed))
    for k in range(1, min(rows, cols) + 1):
        assert _corner_story(x[:k, :k].clone(), x, k) == ""
        told = _corner_story(x[-k:, -k:].clone(), x, k)
        blocks = [x[:k, :k], x[:k, -k:], x[-k:, :k]]
        alone = not any(torch.equal(x[-k:, -k:], b) for b in blocks)
        assert ("x[-k:, -k:]" in told) == alone
