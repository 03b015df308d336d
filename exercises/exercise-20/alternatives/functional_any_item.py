"""zero_grad(set_to_none=False); F.mse_loss; norm_type=2.0 keyword; float(loss); torch.any(~isfinite).item() in a loop."""

import torch
from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad(set_to_none=False)
    loss = nn.functional.mse_loss(model(X), y)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm=max_norm, norm_type=2.0)
    optimizer.step()
    return float(loss)


def has_bad_grad(model):
    for p in model.parameters():
        if p.grad is None:
            continue
        if torch.any(~torch.isfinite(p.grad)).item():
            return True
    return False
