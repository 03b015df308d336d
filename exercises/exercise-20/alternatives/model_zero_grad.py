import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    model.zero_grad()
    criterion = nn.MSELoss()
    loss = criterion(model(X), y)
    value = loss.item()
    loss.backward()
    params = [p for group in optimizer.param_groups for p in group["params"]]
    nn.utils.clip_grad_norm_(params, max_norm=max_norm, norm_type=2.0)
    optimizer.step()
    return value


def has_bad_grad(model):
    bad = sum(
        int((~torch.isfinite(p.grad)).sum()) for p in model.parameters() if p.grad is not None
    )
    return bad > 0
