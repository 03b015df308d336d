"""has_bad_grad looks at next(model.parameters()) only."""

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
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()


def has_bad_grad(model):
    p = next(model.parameters())
    if p.grad is None:
        return False
    return bool(torch.isnan(p.grad).any() or torch.isinf(p.grad).any())
