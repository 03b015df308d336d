import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(X), y)
    loss.backward()
    params = [p for p in model.parameters() if p.grad is not None]
    total = torch.sqrt(sum((p.grad**2).sum() for p in params))
    with torch.no_grad():
        for p in params:
            p.grad *= max_norm / total  # also scales small gradients up
    optimizer.step()
    return loss.item()


def has_bad_grad(model):
    for p in model.parameters():
        if p.grad is not None and not torch.isfinite(p.grad).all():
            return True
    return False
