"""Exercise 05: to_sequence as images.permute(0, 3, 1, 2).reshape(B, H*W, C), the reverse
move taken for channels-last, got only "116 of 120 values differ". The order the values come
from is now named, and the reverse move diagnosed where C, H and W tell it apart."""

from __future__ import annotations

import itertools

import pytest
import torch

from grader.spec import Text
from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX05 = hidden_tests("exercise-05")
WHAT = Text("to_sequence(images)", "to_sequence(images)")


def _told(got, images):
    want = images.permute(0, 2, 3, 1).reshape(images.shape[0], -1, images.shape[1])
    try:
        EX05._explain_sequence(got, images, want, WHAT)
    except CheckFailed as caught:
        return caught.evidence, caught.message.en
    return (), ""


@pytest.mark.parametrize("order", list(itertools.permutations(range(4))))
def test_each_order_is_named_and_the_reverse_move_diagnosed(order):
    images = torch.randn(2, 3, 4, 5, generator=torch.Generator().manual_seed(1))
    b, c, h, w = images.shape
    evidence, en = _told(images.permute(order).reshape(b, h * w, c), images)
    if order == (0, 2, 3, 1):
        assert en == ""
        return
    assert en, order
    assert ("permute_order" in evidence) == (order == (0, 3, 1, 2))
    if order not in EX05._NAMED_ORDERS:
        assert f"images.permute({', '.join(map(str, order))})" in en
