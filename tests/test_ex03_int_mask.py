"""Exercise 3: filter_boxes with an integer mask (boxes[(scores > t).int()], torch.where(...,
1, 0)) returns rows 0 and 1 over and over. Its kept rows, read as a set, looked like "the due
boxes and a tie", and the learner, who had written >, was told "Use >, not >=". The rule now
counts rows: a box kept more than once is no filter, and >= is told only for the due boxes
plus ties, each once."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from tests.hidden import hidden_tests

EX03 = hidden_tests("exercise-03")


def _row(i):
    return tuple(4.0 * i + c for c in range(4))


@given(
    levels=st.lists(st.sampled_from(EX03.LEVELS), min_size=2, max_size=8),
    threshold=st.sampled_from(EX03.LEVELS[:4]),
)
def test_ties_are_told_only_for_each_box_once(levels, threshold):
    want = [_row(i) for i, v in enumerate(levels) if v > threshold]
    # an integer mask: row 1 where the score passes, row 0 elsewhere, one per box
    int_mask = sorted(_row(1 if v > threshold else 0) for v in levels)
    inclusive = sorted(_row(i) for i, v in enumerate(levels) if v >= threshold)
    if (
        int_mask != inclusive
    ):  # (two boxes, the first a tie: both read the same; a probe parts them)
        assert not EX03._ties_kept(int_mask, want, levels, threshold)
    # >= keeps the due boxes and the ties, each once
    ties = any(v == threshold for v in levels)
    assert EX03._ties_kept(inclusive, want, levels, threshold) == ties
