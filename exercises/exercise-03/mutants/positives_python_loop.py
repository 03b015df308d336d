"""Exercise 03 - mutant: positives as a Python loop into torch.tensor(...), made on the CPU."""

import torch


def positives(x: torch.Tensor) -> torch.Tensor:
    # Every element in row-major order; the new tensor is made on the CPU (no device=).
    return torch.tensor([v.item() for v in x.reshape(-1) if v > 0], dtype=x.dtype)


def filter_boxes(boxes: torch.Tensor, scores: torch.Tensor, threshold: float) -> torch.Tensor:
    # One mask entry per box (row); strictly greater, so a score equal to threshold is dropped.
    return boxes[scores > threshold]


def corner_copy(x: torch.Tensor, k: int) -> torch.Tensor:
    # Slicing gives a view of x's memory; clone() always copies (contiguous() may not).
    return x[:k, :k].clone()
