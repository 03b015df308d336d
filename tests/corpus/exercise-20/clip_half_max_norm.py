"""Exercise 20 - reference solution."""

import torch
from torch import nn


def train_step(
    model: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    max_norm: float,
) -> float:
    optimizer.zero_grad()  # gradients left from before would be added in
    loss = nn.MSELoss()(model(X), y)
    loss.backward()
    # After backward (the gradients exist) and before step (which uses them): rescale all the
    # gradients together so that their total norm is at most max_norm.
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm / 2)
    optimizer.step()
    return loss.item()


def has_bad_grad(model: nn.Module) -> bool:
    # isfinite is False for NaN, inf and -inf; `not tensor` turns each answer into a Python bool.
    return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in model.parameters())
