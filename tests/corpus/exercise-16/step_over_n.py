"""Exercise 16 - reference solution."""

import torch


def fit_linear(
    X: torch.Tensor, y: torch.Tensor, lr: float, steps: int
) -> tuple[torch.Tensor, torch.Tensor, list[float]]:
    d = X.shape[1]
    w = torch.zeros(d, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        # X @ w has shape (n,), like y: no broadcasting to (n, n).
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():  # the update itself must not be recorded
            w -= lr * w.grad / X.shape[0]
            b -= lr * b.grad / X.shape[0]
        w.grad.zero_()  # gradients accumulate: clear them for the next step
        b.grad.zero_()
    return w.detach(), b.detach(), losses
