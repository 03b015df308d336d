"""fit_linear: b = 0.0, a Python number, returned as it is."""

import torch


def fit_linear(X, y, lr, steps):
    w = torch.zeros(X.shape[1], dtype=X.dtype, device=X.device, requires_grad=True)
    b = 0.0
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
        w.grad.zero_()
    return w.detach(), b, losses
