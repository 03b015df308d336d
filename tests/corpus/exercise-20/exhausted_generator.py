import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    params = model.parameters()
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(X), y)
    loss.backward()
    total = 0.0
    for p in params:
        total += p.grad.norm().item() ** 2
    print(f"grad norm: {total ** 0.5:.3f}")
    torch.nn.utils.clip_grad_norm_(params, max_norm)
    optimizer.step()
    return loss.item()


def has_bad_grad(model):
    return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in model.parameters())
