"""Exercise 09: stack_images as torch.stack(images).squeeze() was told "the images were joined
along their existing first dim (channels), as torch.cat does" for one image, or for images of
one channel, where torch.cat and the squeeze give the same batch. There the cat story is no
longer told; where only cat gives the answer it still is."""

from __future__ import annotations

import pytest
import torch

from grader.testing.checks import CheckFailed
from tests.hidden import hidden_tests

EX09 = hidden_tests("exercise-09")


def _evidence(got, images):
    try:
        EX09._check_stacked(got, images, torch.stack(images), "stack_images(images)")
    except CheckFailed as caught:
        return caught.evidence
    return ()


@pytest.mark.parametrize(("count", "shape"), [(1, (3, 4, 4)), (5, (1, 2, 3)), (1, (1, 2, 2))])
def test_a_squeezed_stack_is_not_told_cat(count, shape):
    images = [torch.randn(shape) for _ in range(count)]
    evidence = _evidence(torch.stack(images).squeeze(), images)
    assert "cat_instead_of_stack" not in evidence and "size_one_dims" in evidence


@pytest.mark.parametrize(("count", "shape"), [(4, (3, 5, 6)), (2, (2, 1, 1))])
def test_cat_is_told_where_only_cat_gives_it(count, shape):
    images = [torch.randn(shape) for _ in range(count)]
    assert "cat_instead_of_stack" in _evidence(torch.cat(images), images)
