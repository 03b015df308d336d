"""p.grad = None; the mean written out; clip on the list of parameters with gradients; stacked any() of ~isfinite."""

from __future__ import annotations

import torch
from torch import nn


def train_step(
    model: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    max_norm: float,
) -> float:
    for p in model.parameters():
        p.grad = None
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    params = [p for p in model.parameters() if p.grad is not None]
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()
    return loss.detach().item()


def has_bad_grad(model: nn.Module) -> bool:
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return False
    return bool(torch.stack([(~torch.isfinite(g)).any() for g in grads]).any())
