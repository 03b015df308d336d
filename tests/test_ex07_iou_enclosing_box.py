"""Exercise 7: iou_matrix with the corners taken the wrong way round (torch.minimum of the
top-left corners, torch.maximum of the bottom-right ones: the box enclosing both) got only
"1 of 15 values differ" and "share no area ... but yours is inf". Values that are, pair for
pair, those of the enclosing box are now named, with which corner takes the maximum."""

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


def _boxes(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    corner = torch.randint(0, 6, (n, 2), generator=g).float()
    size = torch.randint(1, 5, (n, 2), generator=g).float()
    return torch.cat([corner, corner + size], dim=1)


def _iou(a: torch.Tensor, b: torch.Tensor, enclosing: bool) -> torch.Tensor:
    low, high = (torch.minimum, torch.maximum) if enclosing else (torch.maximum, torch.minimum)
    top_left = low(a[:, None, :2], b[None, :, :2])
    bottom_right = high(a[:, None, 2:], b[None, :, 2:])
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)


@given(n=st.integers(1, 5), m=st.integers(1, 5), seed=st.integers(0, 2**16))
def test_the_enclosing_box_is_named_and_the_overlap_is_not(n, m, seed):
    a, b = _boxes(n, seed), _boxes(m, seed + 1)
    want = _iou(a, b, enclosing=False).double()
    got = _iou(a, b, enclosing=True).double()
    EX07._name_iou_mistake(want.clone(), want, a, b, WHAT)  # right: nothing said
    assume(not torch.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True))
    with pytest.raises(CheckFailed) as caught:
        EX07._name_iou_mistake(got, want, a, b, WHAT)
    assert "iou_enclosing_box" in caught.value.evidence
    assert "enclosing both boxes" in caught.value.message.en
    assert "外接框" in caught.value.message.zh


@given(n=st.integers(2, 5), seed=st.integers(0, 2**16))
def test_other_wrong_ious_are_not_told_the_enclosing_box(n, seed):
    a, b = _boxes(n, seed), _boxes(n, seed + 1)
    want = _iou(a, b, enclosing=False).double()
    for wrong in (want.t().contiguous(), want * 0.5, want.clamp(max=0.5)):
        if torch.allclose(wrong, want, rtol=1e-4, atol=1e-5):
            continue
        try:
            EX07._name_iou_mistake(wrong, want, a, b, WHAT)
        except CheckFailed as caught:
            assert "iou_enclosing_box" not in caught.evidence
