"""Exercise 7: iou_matrix dividing the overlap by the smaller box's area (intersection over
minimum) or by one box's area got only "1 of 15 values differ", and the union counted twice
(inter / (area_a + area_b)) was told its formula with no diagnosis. Values that are, pair for
pair, the overlap over something other than the union are now named (`iou-not-over-union`);
where the smaller area and one box's area give the same values, the message says so rather
than picking one."""

from __future__ import annotations

import pytest
import torch
from hypothesis import assume, given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX07 = hidden_tests("exercise-07")
WHAT = Text("iou_matrix(a, b)", "iou_matrix(a, b)")
TOLD = {"union_counts_overlap_twice", "iou_over_smaller_area", "iou_over_one_area"}


def _boxes(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    corner = torch.randint(0, 6, (n, 2), generator=g).float()
    size = torch.randint(1, 5, (n, 2), generator=g).float()
    return torch.cat([corner, corner + size], dim=1)


def _iou(a: torch.Tensor, b: torch.Tensor, over: str) -> torch.Tensor:
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = ((a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1]))[:, None]
    area_b = ((b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]))[None, :]
    denominators = {
        "union": area_a + area_b - inter,
        "sum": area_a + area_b,
        "min": torch.minimum(area_a, area_b),
        "a": area_a.expand_as(inter),
        "b": area_b.expand_as(inter),
    }
    return (inter / denominators[over]).double()


def _evidence(got: torch.Tensor, want: torch.Tensor, a, b) -> list[str]:
    try:
        EX07._name_iou_mistake(got, want, a, b, WHAT)
    except CheckFailed as caught:
        return list(caught.evidence)
    return []


@given(
    n=st.integers(1, 5),
    m=st.integers(1, 5),
    seed=st.integers(0, 2**16),
    over=st.sampled_from(["sum", "min", "a", "b"]),
)
def test_an_overlap_over_another_denominator_is_named(n, m, seed, over):
    a, b = _boxes(n, seed), _boxes(m, seed + 1)
    want, got = _iou(a, b, "union"), _iou(a, b, over)
    assert _evidence(want.clone(), want, a, b) == []  # right: nothing said
    assume(not torch.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True))
    # where another classic slip gives the same values (the + 1 pixel convention on boxes of
    # equal areas), the answer tells neither apart and neither is named
    assume(
        not any(
            EX07._same(got, formula(a, b))
            for formula, tag, _, _ in EX07._IOU_MISTAKES
            if tag not in TOLD
        )
    )
    evidence = _evidence(got, want, a, b)
    assert TOLD & set(evidence)
    if over == "min":
        assert "union_counts_overlap_twice" not in evidence


@given(n=st.integers(2, 5), seed=st.integers(0, 2**16))
def test_other_wrong_ious_are_not_told_a_denominator(n, seed):
    a, b = _boxes(n, seed), _boxes(n, seed + 1)
    want = _iou(a, b, "union")
    for wrong in (want * 0.5 + 0.25, want.clamp(max=0.5), want + 0.1):
        if any(EX07._same(wrong, _iou(a, b, over)) for over in ("union", "sum", "min", "a", "b")):
            continue  # value for value one of them (half of a lone 1 is the sum's 0.5)
        assert not TOLD & set(_evidence(wrong, want, a, b))


def test_a_nested_box_over_the_smaller_area_is_told_so():
    a = torch.tensor([[0.0, 0.0, 1.0, 1.0], [0.0, 0.0, 4.0, 4.0]])
    b = torch.tensor([[0.0, 0.0, 2.0, 2.0], [1.0, 1.0, 3.0, 2.0]])
    with pytest.raises(CheckFailed) as caught:
        EX07._name_iou_mistake(_iou(a, b, "min"), _iou(a, b, "union"), a, b, WHAT)
    assert "iou_over_smaller_area" in caught.value.evidence
    assert "min(area_a, area_b)" in caught.value.message.en
    assert "较小框的面积" in caught.value.message.zh
