"""Exercise 04 - gather and scatter.

Implement the two functions below (each one currently raises NotImplementedError), keeping their
names and arguments. Run `grade exercise-04` to check your work, `grade hint exercise-04` when you
are stuck.
"""

import torch


def one_hot(labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    """One-hot encode `labels` (N,) int64, each in range(num_classes): a float32 tensor of shape
    (N, num_classes), on the device of `labels`, with a 1.0 in column labels[i] of row i and 0.0
    everywhere else."""
    # TODO: start from zeros of the right shape, dtype and device, then scatter the ones.
    raise NotImplementedError


def pick(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """For `scores` (N, C) and `labels` (N,) int64, the tensor of shape (N,) whose element i is
    scores[i, labels[i]], computed without Python loops."""
    # TODO: torch.gather picks one value per row along a dimension.
    raise NotImplementedError
