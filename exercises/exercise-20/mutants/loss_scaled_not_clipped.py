import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = nn.MSELoss()(model(X), y)
    value = loss.item()
    if value > max_norm:
        loss = loss * (max_norm / value)  # the loss kept at max_norm, the gradients unclipped
    loss.backward()
    optimizer.step()
    return value


def has_bad_grad(model):
    return any(p.grad is not None and not torch.isfinite(p.grad).all() for p in model.parameters())
