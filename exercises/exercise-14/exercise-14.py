"""Exercise 14 - zero_grad placement.

This training loop runs without any error, yet the model never learns. Find the bug and fix it,
keeping the function's name, arguments and return value. Run `grade exercise-14` to check.
"""

import torch
from torch import nn


def train(
    model: nn.Module, X: torch.Tensor, y: torch.Tensor, lr: float = 0.1, epochs: int = 50
) -> list[float]:
    """Full-batch SGD on the mean squared error, one step per epoch.

    Trains `model` in place and returns the loss of every epoch, measured before its step.
    """
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        prediction = model(X)
        loss = loss_fn(prediction, y)
        losses.append(loss.item())
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
    return losses
