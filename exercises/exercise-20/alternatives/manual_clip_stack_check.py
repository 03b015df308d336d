"""The clipping written out (with 1e-6 in the denominator); the check stacked."""

import torch


def train_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss = ((model(X) - y) ** 2).mean()
    loss.backward()
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = torch.sqrt(sum((g**2).sum() for g in grads))
    scale = torch.clamp(max_norm / (total + 1e-6), max=1.0)
    for g in grads:
        g.mul_(scale)
    optimizer.step()
    return loss.item()


def has_bad_grad(model):
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    if not grads:
        return False
    return bool(torch.stack([(~g.isfinite()).any() for g in grads]).any())
