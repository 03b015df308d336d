"""torch.set_grad_enabled(False) restored to its previous state in finally; detach().to(copy=True)."""

import torch


def predict(model, X):
    previous = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    try:
        y = model(X)
    finally:
        torch.set_grad_enabled(previous)
    return y


def snapshot(t):
    return t.detach().to(copy=True)
