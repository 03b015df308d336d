"""Exercise 7: pairwise distances as the Manhattan distance (|diff|.sum(-1)) or as the root of
the mean square (mean where the sum was due), and IoU with areas x2 * y2 (boxes read as
(x, y, w, h)) or width + height, got only "values differ". Each is now named where every value
is that formula; the right answers are not, and neither formula is told of the other."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, example, given
from hypothesis import strategies as st

from grader.spec import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")
WHAT = Text("pairwise_distance(x)", "pairwise_distance(x)")


def _distance_evidence(values, x) -> list[str]:
    want = (x[:, None] - x[None]).pow(2).sum(-1).sqrt().double()
    want.diagonal().zero_()
    mine = values.double().clone()
    mine.diagonal().zero_()
    try:
        EX07._another_distance(mine, want, x, WHAT, 1e-4, 1e-4)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(n=st.integers(2, 6), d=st.integers(2, 5), seed=st.integers(0, 999))
def test_manhattan_and_mean_are_named_and_the_distance_is_not(n, d, seed):
    x = torch.randn(n, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    diff = x[:, None] - x[None]
    assert _distance_evidence(diff.pow(2).sum(-1).sqrt(), x) == []
    l1 = _distance_evidence(diff.abs().sum(-1), x)
    assert "manhattan_distance" in l1 and "mean_where_sum" not in l1
    rms = _distance_evidence(diff.pow(2).mean(-1).sqrt(), x)
    assert "mean_where_sum" in rms and "manhattan_distance" not in rms
    # squared: not these stories (it has its own, tests/test_ex07_squared_distance.py)
    squared = _distance_evidence(diff.pow(2).sum(-1), x)
    assert "manhattan_distance" not in squared and "mean_where_sum" not in squared


def _boxes(count, seed):
    g = torch.Generator().manual_seed(seed)
    corner = torch.rand(count, 2, generator=g, dtype=torch.float64) * 10
    size = torch.rand(count, 2, generator=g, dtype=torch.float64) * 5 + 0.5
    return torch.cat([corner, corner + size], dim=1)


def _iou_evidence(mine, a, b) -> list[str]:
    try:
        EX07._name_iou_mistake(mine, EX07._iou_of_reference(a, b), a, b, "iou_matrix(a, b)")
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


def _tags_that_fit(values, a, b) -> set[str]:
    return {tag for formula, tag, _, _ in EX07._IOU_MISTAKES if EX07._same(values, formula(a, b))}


@given(n=st.integers(1, 5), m=st.integers(1, 5), seed=st.integers(0, 999))
# boxes that barely overlap: the summed areas' IoU is within the test's tolerance of the right one
@example(n=1, m=2, seed=453)
# one small overlap: the summed areas' IoU is also the overlap over the smaller box's area
@example(n=5, m=2, seed=50)
def test_wrong_areas_are_named_where_no_other_formula_fits(n, m, seed):
    """Each area slip is named where its values are that formula's alone; where another
    formula gives the same values, the evidence does not tell which, and none is named."""
    a, b = _boxes(n, seed), _boxes(m, seed + 1)
    right = EX07._iou_of_reference(a, b)
    assert _iou_evidence(right, a, b) == []
    for formula, tag in (
        (EX07._corner_product_areas_iou, "iou_area_of_corner"),
        (EX07._side_sum_areas_iou, "iou_area_summed"),
    ):
        values = formula(a, b)
        assume(not EX07._same(values, right))  # told apart from the right answer as the test does
        evidence = _iou_evidence(values, a, b)
        if _tags_that_fit(values, a, b) == {tag}:
            assert tag in evidence
        else:
            assert tag not in evidence


def test_the_area_story_names_the_corner_format():
    a = b = _boxes(3, 1)  # each box overlaps itself
    with pytest.raises(CheckFailed) as caught:
        EX07._name_iou_mistake(
            EX07._corner_product_areas_iou(a, b), EX07._iou_of_reference(a, b), a, b, "iou"
        )
    assert "(x1, y1, x2, y2)" in caught.value.message.en
    assert "(x1, y1, x2, y2)" in caught.value.message.zh
