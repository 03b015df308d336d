"""Exercise 15 - Inference without the graph.

Implement the two functions below (each one currently raises NotImplementedError), keeping their
names and arguments. Run `grade exercise-15` to check your work, `grade hint exercise-15` when
you are stuck.
"""

import torch
from torch import nn


def predict(model: nn.Module, X: torch.Tensor) -> torch.Tensor:
    """The model's outputs for X, computed without recording an autograd graph.

    The result does not require grad. The model's parameters, their requires_grad flags and
    .grad, and its train/eval mode are left exactly as they were.
    """
    # TODO: which context manager stops PyTorch from recording the graph?
    raise NotImplementedError


def snapshot(t: torch.Tensor) -> torch.Tensor:
    """A copy of t that is out of the autograd graph and shares no memory with t."""
    # TODO: one call leaves the graph, another copies the data; you need both.
    raise NotImplementedError
