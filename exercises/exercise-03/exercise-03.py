"""Exercise 03 - Indexing, masks and views.

Implement the three functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-03` to check your work, `grade hint exercise-03`
when you are stuck.
"""

import torch


def positives(x: torch.Tensor) -> torch.Tensor:
    """A 1-D tensor of the elements of `x` that are > 0, in row-major order.

    `x` can have any shape; the result keeps x's dtype and device.
    """
    # TODO: build a boolean mask and index with it.
    raise NotImplementedError


def filter_boxes(boxes: torch.Tensor, scores: torch.Tensor, threshold: float) -> torch.Tensor:
    """The rows of `boxes` (N, 4) whose score in `scores` (N,) is strictly greater than
    `threshold`, in their original order: a tensor of shape (M, 4)."""
    # TODO: one mask entry per box.
    raise NotImplementedError


def corner_copy(x: torch.Tensor, k: int) -> torch.Tensor:
    """The top-left k x k block of `x` (H, W) as an independent copy: writing into the result
    must never change `x`."""
    # TODO: slicing alone gives a view that shares x's memory.
    raise NotImplementedError
