import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    opt = torch.optim.Adam(model.parameters())
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm)
    opt.step()
    return loss.item()


def has_bad_grad(model):
    return any(
        p.grad is not None and not torch.isfinite(p.grad).all() for p in model.parameters()
    )
