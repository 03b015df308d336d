"""Exercise 03."""

import torch


def positives(x: torch.Tensor) -> torch.Tensor:
    # A boolean mask selects: the result is 1-D, in row-major order, whatever x's layout.
    return x[x > 0]


def filter_boxes(boxes: torch.Tensor, scores: torch.Tensor, threshold: float) -> torch.Tensor:
    # One mask entry per box (row); strictly greater, so a score equal to threshold is dropped.
    return boxes[torch.where(scores > threshold, 1, 0)]


def corner_copy(x: torch.Tensor, k: int) -> torch.Tensor:
    # Slicing gives a view of x's memory; clone() always copies (contiguous() may not).
    return x[:k, :k].clone()
