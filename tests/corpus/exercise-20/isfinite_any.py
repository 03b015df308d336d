import torch
from torch import nn


def train_step(
    model: nn.Module,
    X: torch.Tensor,
    y: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    max_norm: float,
) -> float:
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(X), y)
    loss.backward()
  
  
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()


def has_bad_grad(model: nn.Module) -> bool:
  
    return any(p.grad is not None and not torch.isfinite(p.grad).any() for p in model.parameters())
