"""Exercise 08 - a correct alternative: A stable softmax written by hand in a helper the learner named softmax."""

import torch


def softmax(z: torch.Tensor, dim: int = -1) -> torch.Tensor:
    """A numerically stable softmax, written by hand."""
    z = z - z.max(dim=dim, keepdim=True).values
    e = z.exp()
    return e / e.sum(dim=dim, keepdim=True)


def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    return x.max(dim=1)


def softmax_rows(x):
    return softmax(x, dim=1)
