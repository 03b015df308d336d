"""Exercise 11: `images.float().mean(dim=(1, 2)) * 255` (multiplied where a division was due)
got only "4 of 4 values differ ... yours is 27149.5, expected 0.417525". Values that are the
expected brightness times 255 * 255 are now named; other factors are not told so."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX11 = hidden_tests("exercise-11")
WHAT = Text("mean_brightness(images)", "mean_brightness(images)")

levels = st.lists(st.integers(0, 255 * 64), min_size=1, max_size=8).map(
    lambda v: torch.tensor(v, dtype=torch.float64) / 64 / 255  # means of 64 pixels, scaled
)


def _story(theirs, ours):
    try:
        EX11._check_scaled(theirs, ours, WHAT)
    except CheckFailed as failed:
        return tuple(failed.evidence), failed.message.en
    return None


@settings(max_examples=200, deadline=None)
@given(ours=levels, factor=st.sampled_from([255 * 255, 255, 256, 1 / 255, 2, 65025 * 1.01]))
def test_a_multiplication_by_255_is_named_only_for_its_own_factor(ours, factor):
    theirs = (ours * factor).float().double()  # a float32 answer
    story = _story(theirs, ours)
    said = story is not None and "multiplied_not_divided" in story[0]
    assert said == (factor == 255 * 255 and bool((ours > 0).any()))
    if said:
        assert "multiplied by 255 where it must be divided" in story[1]


@pytest.mark.parametrize("factor", [255.0, 255.0 * 255.0])
def test_each_factor_keeps_its_own_words(factor):
    ours = torch.tensor([0.25, 0.5, 1.0], dtype=torch.float64)
    story = _story(ours * factor, ours)
    assert story is not None
    assert ("divide by 255" in story[1]) == (factor == 255.0)
