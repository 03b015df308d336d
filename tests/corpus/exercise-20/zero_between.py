import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    criterion = nn.MSELoss()
    loss = criterion(model(X), y)
    loss.backward()
    optimizer.zero_grad()  # clear old gradients before the update
    torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm)
    optimizer.step()
    return loss.item()


def has_bad_grad(model):
    for p in model.parameters():
        if p.grad is not None and not torch.isfinite(p.grad).all():
            return True
    return False
