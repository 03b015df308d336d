"""Exercise 11: a brightness summed over the pixels (``images.float().sum(dim=(1, 2)) / 255``)
was told "whole pixel levels divided by 255 ... integer division drops the fraction"
(``uint8-arithmetic``), since a sum of whole levels is whole too. The integer story now needs
values within one level of the true mean (or the brightness floored, a mean // 255); a sum is
named as a sum (``summed-not-averaged``), on any images."""

from __future__ import annotations

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX11 = hidden_tests("exercise-11")


def _story(answer, images):
    want = images.float().mean(dim=(1, 2)) / 255
    try:
        EX11._compare_brightness(answer, want, "mean_brightness(images)", images)
    except CheckFailed as failed:
        return failed.evidence
    return ()


@settings(max_examples=60, deadline=None)
@given(
    b=st.integers(1, 4),
    h=st.integers(2, 8),
    w=st.integers(2, 8),
    seed=st.integers(0, 2**31 - 1),
)
def test_a_sum_is_named_a_sum_and_an_integer_mean_stays_named(b, h, w, seed):
    g = torch.Generator().manual_seed(seed)
    images = torch.randint(1, 256, (b, h, w), dtype=torch.uint8, generator=g)
    summed = _story(images.float().sum(dim=(1, 2)) / 255, images)
    assert "summed_not_averaged" in summed and "integer_pixel_arithmetic" not in summed
    truncated = images.sum(dim=(1, 2)) // (h * w)  # a mean on integers: the fraction dropped
    exact = bool((images.sum(dim=(1, 2)) % (h * w) == 0).all())
    if not exact:
        evidence = _story(truncated.float() / 255, images)
        assert "integer_pixel_arithmetic" in evidence and "summed_not_averaged" not in evidence
