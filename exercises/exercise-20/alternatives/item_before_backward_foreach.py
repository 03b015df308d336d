"""loss.item() before backward; clip_grad_norm_(foreach=True, error_if_nonfinite=False); named_parameters and a flag."""

from torch import nn


def train_step(model, X, y, optimizer, max_norm):
    optimizer.zero_grad()
    loss_fn = nn.MSELoss()
    loss = loss_fn(model(X), y)
    value = loss.item()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), max_norm, error_if_nonfinite=False, foreach=True)
    optimizer.step()
    return value


def has_bad_grad(model):
    bad = False
    for name, p in model.named_parameters():
        if p.grad is not None and not p.grad.isfinite().all().item():
            bad = True
    return bad
