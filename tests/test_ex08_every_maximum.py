"""Exercise 8: row_max's indices read off (x == values[:, None]).nonzero()[:, 1] got "should
have shape (6,), but yours has shape (15,)" (every maximal position listed) or "row 1 got index
1, where x holds 0" (the first n of them) and no diagnosis. Where the indices are those
positions, all of them or the first n, and rows tie, they are now named
`nonzero-every-maximum`; a right answer, and any other wrong one, is not told it.

The first n positions alone can equal an answer computed row by row (argmin of [[2, 2], [1, 0]]
is [0, 1], as is the cut listing), which was told the nonzero story: that story now needs the
learner's own indices of two xs that differ in one row to move in the other rows."""

from __future__ import annotations

import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX08 = hidden_tests("exercise-08")


@st.composite
def matrices(draw):
    n, d = draw(st.integers(1, 6)), draw(st.integers(1, 5))
    values = draw(st.lists(st.integers(0, 2), min_size=n * d, max_size=n * d))
    return torch.tensor(values, dtype=torch.float32).reshape(n, d)


def _tag(indices, x, indices_of=None):
    try:
        EX08._every_maximum_listed(indices, x, "the indices returned by row_max(x)", indices_of)
    except CheckFailed as caught:
        assert "nonzero_every_maximum" in caught.evidence
        return True
    return False


def _ties(x):
    return int((x == x.amax(dim=1, keepdim=True)).sum()) > x.shape[0]


@given(x=matrices())
def test_every_maximal_position_is_named_where_rows_tie(x):
    listed = (x == x.amax(dim=1, keepdim=True)).nonzero()[:, 1]
    assert _tag(listed, x) == _ties(x)


def _cut(x):
    return (x == x.amax(dim=1, keepdim=True)).nonzero()[:, 1][: x.shape[0]]


@given(x=matrices())
def test_the_first_n_positions_are_named_where_they_point_off_a_maximum(x):
    maxima = x == x.amax(dim=1, keepdim=True)
    cut = _cut(x)
    right = bool(maxima.gather(1, cut[:, None]).all())
    assert _tag(cut, x, _cut) == (_ties(x) and not right)
    assert not _tag(cut, x)  # without the learner's other answers, no evidence


def _row_by_row(seed):
    """An answer computed from each row alone: any function of the row's values."""

    def indices(x):
        return torch.tensor(
            [hash((seed, tuple(row.tolist()))) % x.shape[1] for row in x], dtype=torch.long
        )

    return indices


ROW_BY_ROW = [
    lambda x: x.argmin(dim=1),
    lambda x: (-x).argmax(dim=1),
    lambda x: x.argsort(dim=1)[:, 0],
    lambda x: x.shape[1] - 1 - x.flip(1).argmax(dim=1),
    lambda x: torch.zeros(x.shape[0], dtype=torch.long),
]


@given(x=matrices(), seed=st.integers(0, 2**32), pick=st.integers(-1, len(ROW_BY_ROW) - 1))
def test_no_answer_computed_row_by_row_is_named(x, seed, pick):
    answer = _row_by_row(seed) if pick < 0 else ROW_BY_ROW[pick]
    assert not _tag(answer(x), x, answer)


def test_argmin_that_equals_the_cut_listing_is_not_named():
    x = torch.tensor([[2.0, 2.0], [1.0, 0.0]])
    assert torch.equal(x.argmin(dim=1), _cut(x))
    assert not _tag(x.argmin(dim=1), x, lambda x: x.argmin(dim=1))


@given(x=matrices())
def test_right_indices_and_other_mistakes_are_not_named(x):
    assert not _tag(x.argmax(dim=1), x)
    assert not _tag(x.max(dim=1).indices, x)
    assert not _tag(torch.zeros(0, dtype=torch.long), x)
