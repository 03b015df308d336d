import torch


def fit_linear(X, y, lr, steps):
    n, d = X.shape
    w = torch.zeros(d, dtype=X.dtype, device=X.device)
    b = torch.zeros((), dtype=X.dtype, device=X.device)
    losses = []
    for _ in range(steps):
        err = X @ w + b - y
        losses.append((err ** 2).mean().item())
        grad_w = 2 * X.T @ err / n
        grad_b = err.mean()
        w = w - lr * grad_w
        b = b - lr * grad_b
    return w, b, losses
