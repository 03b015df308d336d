"""Exercise 17 - Training loop with nn.Linear and SGD.

Implement the function below (it currently raises NotImplementedError), keeping its name and
arguments. Run `grade exercise-17` to check your work, `grade hint exercise-17` when you are stuck.
"""

import torch
from torch import nn


def train_regressor(
    X: torch.Tensor, y: torch.Tensor, epochs: int, lr: float, seed: int
) -> tuple[nn.Linear, list[float]]:
    """Fit nn.Linear(d, 1) to (X, y) with full-batch SGD on nn.MSELoss.

    X has shape (n, d) and y shape (n,). Call torch.manual_seed(seed), then create the model on
    the CPU and move it to X's device. Train for `epochs` steps and return the model and the loss
    of each epoch (a Python float, measured before that epoch's step).
    """
    # TODO: seed, build, optimizer, loss function; then zero_grad, forward, loss, backward, step.
    raise NotImplementedError
