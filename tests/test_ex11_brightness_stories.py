"""Exercise-11's mean_brightness: each story of a wrong brightness (a division by 256, integer
arithmetic, float16 rounding, a mean over the wrong dims) is told exactly where it reproduces
the learner's values, and no other (a division by 256 is not "a size of the input")."""

from __future__ import annotations

import types

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

HIDDEN = hidden_tests("exercise-11")
REFERENCE = types.SimpleNamespace(
    mean_brightness=lambda images: images.float().mean(dim=(1, 2)) / 255
)


def _failure(test: str, brightness) -> CheckFailed | None:
    """The failure of the hidden test ``test`` for a learner whose mean_brightness is
    ``brightness``; None when it passes."""
    learner = types.SimpleNamespace(mean_brightness=brightness)
    run = getattr(HIDDEN, test)
    try:
        if test == "test_mean_brightness_values":
            run(learner, REFERENCE, "cpu", torch.Generator().manual_seed(0))
        elif test == "test_mean_brightness_empty_batch":
            run(learner, "cpu")
        else:
            run(learner, REFERENCE, "cpu")
    except CheckFailed as failed:
        return failed
    return None


BRIGHTNESS_TESTS = ("test_mean_brightness_values", "test_mean_brightness_pixel_levels")

MISTAKES = {
    # the stories and the evidence each must give; none may give another story's tag
    "divide_256": (lambda x: x.float().mean(dim=(1, 2)) / 256, "wrong_pixel_scale"),
    "half": (lambda x: x.half().mean(dim=(1, 2)) / 255, "low_precision_float"),
    "half_then_float": (
        lambda x: (x.half() / 255).mean(dim=(1, 2)).float(),
        "low_precision_float",
    ),
    "floor_mean": (
        lambda x: (x.sum(dim=(1, 2)) // (x.shape[1] * x.shape[2])) / 255,
        "integer_pixel_arithmetic",
    ),
    "uint8_wraps": (
        lambda x: (x * 100 / 255).mean(dim=(1, 2)) / 100,
        "integer_pixel_arithmetic",
    ),
    "dims_0_1": (lambda x: x.float().mean(dim=(0, 1)) / 255, "reduced_wrong_dim"),
    "off_by_a_bit": (lambda x: x.float().mean(dim=(1, 2)) / 255 + 0.01, None),
}
STORIES = {"wrong_pixel_scale", "low_precision_float", "integer_pixel_arithmetic"}


@pytest.mark.parametrize("test", BRIGHTNESS_TESTS)
@pytest.mark.parametrize("mistake", sorted(MISTAKES))
def test_each_story_is_told_only_where_it_reproduces_the_answer(test, mistake):
    brightness, tag = MISTAKES[mistake]
    failed = _failure(test, brightness)
    assert failed is not None
    evidence = set(failed.evidence)
    if tag is not None:
        assert tag in evidence, (mistake, failed.evidence, failed.message.en)
    # no other story, and never "a size of the input" for a pixel scale
    assert not (evidence & STORIES) - {tag}, (mistake, failed.evidence)
    assert "scaled_by_size" not in evidence
    assert "number of elements" not in failed.message.en
    if tag is None:  # no story fits: the numbers alone
        assert failed.evidence == ("values_differ",) or not (evidence & STORIES)
        assert "wrap around" not in failed.message.en, failed.message.en


def test_divide_by_256_says_255_is_the_largest_pixel_value_in_both_languages():
    failed = _failure("test_mean_brightness_values", MISTAKES["divide_256"][0])
    assert failed is not None
    assert "255/256" in failed.message.en and "the largest value a uint8 pixel" in failed.message.en
    assert "255/256" in failed.message.zh and "最大值" in failed.message.zh


def test_float16_is_named_and_not_integer_arithmetic_in_both_languages():
    failed = _failure("test_mean_brightness_pixel_levels", MISTAKES["half"][0])
    assert failed is not None
    assert "float16" in failed.message.en and "float16" in failed.message.zh
    assert "wrap around" not in failed.message.en


def test_a_mean_over_the_wrong_dims_is_named_for_an_empty_batch_too():
    failed = _failure("test_mean_brightness_empty_batch", MISTAKES["dims_0_1"][0])
    assert failed is not None and "reduced_wrong_dim" in failed.evidence
    assert "(0, 1)" in failed.message.en and "(0, 1)" in failed.message.zh


@settings(max_examples=40, deadline=None)
@given(
    k=st.integers(2, 2000).filter(lambda k: k != 255),
    shape=st.tuples(st.integers(1, 5), st.integers(1, 6), st.integers(1, 6)),
    seed=st.integers(0, 2**16),
)
def test_any_wrong_pixel_divisor_is_named_with_its_number(k, shape, seed):
    images = torch.randint(1, 256, shape, generator=torch.Generator().manual_seed(seed))
    images = images.to(torch.uint8)
    ours = REFERENCE.mean_brightness(images).double()
    theirs = images.double().mean(dim=(1, 2)) / k
    # one image: a ratio of one value says nothing, and nothing is named
    try:
        HIDDEN._pixel_scale(theirs, ours, "mean_brightness(images)")
    except CheckFailed as failed:
        assert shape[0] >= 2 and "wrong_pixel_scale" in failed.evidence
        assert f"divides by {k}." in failed.message.en
        return
    assert shape[0] < 2


@settings(max_examples=40, deadline=None)
@given(
    scale=st.floats(0.5, 1.5).filter(lambda s: abs(s - 1) > 1e-3),
    seed=st.integers(0, 2**16),
)
def test_a_scale_that_is_not_255_over_a_whole_number_is_not_a_pixel_divisor(scale, seed):
    images = torch.randint(1, 256, (4, 3, 3), generator=torch.Generator().manual_seed(seed))
    ours = REFERENCE.mean_brightness(images.to(torch.uint8)).double()
    k = 255 / scale
    if abs(k - round(k)) <= 1e-4 * round(k):
        return  # it is 255/k for a whole k
    HIDDEN._pixel_scale(ours * scale, ours, "mean_brightness(images)")  # raises nothing
