"""Exercise 5: to_sequence with ``B, H, W, C = images.shape`` (the sizes unpacked in the
channels-last order) and then the right permute and reshape(B, H*W, C) got "Give the result its
three dimensions: reshape(B, H*W, C)", which it has and does. A 3-D result in the right order
whose shape is (B, C*H, W) or (B, C*W, H) is now told the sizes were unpacked in another order
than images.shape holds them, where the three sizes differ (else the order cannot be read)."""

from __future__ import annotations

import itertools

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from grader.i18n import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX05 = hidden_tests("exercise-05")
WHAT = Text("to_sequence(images)", "to_sequence(images)")


def _misnamed(images: torch.Tensor, names: tuple[str, ...]) -> torch.Tensor:
    named = dict(zip(names, images.shape[1:], strict=True))  # B, <names> = images.shape
    return images.permute(0, 2, 3, 1).reshape(images.shape[0], named["H"] * named["W"], named["C"])


SIZES = st.integers(1, 5)


@given(b=st.integers(1, 3), c=SIZES, h=SIZES, w=SIZES, names=st.permutations("CHW"))
def test_sizes_unpacked_in_another_order_are_named_when_the_sizes_tell(b, c, h, w, names):
    images = torch.arange(b * c * h * w, dtype=torch.float32).reshape(b, c, h, w)
    want = images.permute(0, 2, 3, 1).reshape(b, h * w, c)
    got = _misnamed(images, tuple(names))
    if got.shape == want.shape:
        return  # the right shape after all (names in the right order, or equal sizes)
    with pytest.raises(CheckFailed) as caught:
        EX05._explain_sequence(got, images, want, WHAT)
    said = "unpacked in another order" in caught.value.message.en
    assert said == (len({c, h, w}) == 3), caught.value.message.en
    if said:
        assert "B, C, H, W = images.shape" in caught.value.message.zh


@pytest.mark.parametrize("shape", list(itertools.permutations((3, 4, 5))))
def test_other_wrong_shapes_are_not_told_the_unpacking(shape):
    images = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
    want = images.permute(0, 2, 3, 1).reshape(2, 20, 3)
    got = want.reshape(2, *shape)  # 4-D: no reshape(B, H*W, C) makes it
    with pytest.raises(CheckFailed) as caught:
        EX05._explain_sequence(got, images, want, WHAT)
    assert "unpacked in another order" not in caught.value.message.en
