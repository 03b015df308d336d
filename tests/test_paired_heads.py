"""A message that sets the learner's values beside the expected ones showed the first four of
each, even where those four were the same: exercise 11's "your values (0, 0.00392157, 0.25098,
0.498039, ...) ... (expected 0, 0.00392157, 0.25098, 0.498039, ...)". Both now show the same
entries, from just before the first one that reads differently."""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing import paired_heads
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

values = st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=40)


@given(ours=values, data=st.data())
def test_two_answers_that_read_differently_are_shown_differently(ours, data):
    expected = torch.tensor(ours, dtype=torch.float64)
    theirs = expected.clone()
    at = data.draw(st.integers(0, len(ours) - 1))
    theirs[at] = data.draw(st.floats(-1e6, 1e6, allow_nan=False))
    yours, wanted = paired_heads(theirs, expected)
    if f"{theirs[at].item():.6g}" != f"{expected[at].item():.6g}":
        assert yours != wanted
        assert f"{theirs[at].item():.6g}" in yours
    else:
        assert yours == wanted  # nothing a learner could read apart


def test_heads_that_differ_are_shown_from_the_start():
    assert paired_heads(torch.tensor([1.0, 2.0]), torch.tensor([1.5, 2.0])) == ("1, 2", "1.5, 2")
    yours, wanted = paired_heads(torch.arange(10.0), torch.arange(10.0) + (torch.arange(10) == 7))
    assert (yours, wanted) == ("..., 6, 7, 8, 9", "..., 6, 8, 8, 9")


def test_exercise_11_integer_pixels_show_the_levels_that_differ():
    ex11 = hidden_tests("exercise-11")
    levels = torch.tensor([0, 1, 64, 128, 255, 127, 15], dtype=torch.uint8)
    images = levels[:, None, None].expand(-1, 2, 2).clone()
    images[-2:, 0, 0] += 1  # means that are not whole levels: 127.25, 15.25
    ours = images.double().mean(dim=(1, 2)) / 255
    theirs = images.double().mean(dim=(1, 2)).floor() / 255
    with pytest.raises(CheckFailed) as caught:
        ex11._integer_arithmetic(theirs, ours, images, Text("mean_brightness(images)", "x"))
    message = caught.value.message.en
    yours = message.split("your values (")[1].split(")")[0]
    wanted = message.split("(expected ")[1].split(")")[0]
    assert yours != wanted, message
