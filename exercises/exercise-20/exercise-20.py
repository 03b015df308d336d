"""Exercise 20 - Exploding gradients: clipping and NaN checks.

Implement the two functions below (each one currently raises NotImplementedError), keeping their
names and arguments. Run `grade exercise-20` to check your work, `grade hint exercise-20` when
you are stuck.
"""

import torch
from torch import nn


def train_step(
    model: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    max_norm: float,
) -> float:
    """One training step on nn.MSELoss with gradient clipping; returns the loss as a float.

    Zero the gradients, compute the loss of model(X) against y (y has the shape of model(X)),
    backward, clip the total norm of all the gradients to max_norm, step.
    """
    # TODO: where does the clipping go, relative to backward() and step()?
    raise NotImplementedError


def has_bad_grad(model: nn.Module) -> bool:
    """True when any parameter's gradient holds NaN or inf (a Python bool).

    Parameters without a gradient (p.grad is None) are fine.
    """
    # TODO: check every parameter's .grad; some may be None.
    raise NotImplementedError
