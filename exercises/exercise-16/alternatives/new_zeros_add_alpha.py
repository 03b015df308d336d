"""X.new_zeros for w and b; p.add_(p.grad, alpha=-lr); p.grad = None."""

import torch


def fit_linear(X, y, lr, steps):
    w = X.new_zeros(X.shape[1]).requires_grad_()
    b = X.new_zeros(()).requires_grad_()
    losses = []
    for _ in range(steps):
        loss = torch.nn.functional.mse_loss(X @ w + b, y)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (w, b):
                p.add_(p.grad, alpha=-lr)
                p.grad = None
    return w.detach(), b.detach(), losses
