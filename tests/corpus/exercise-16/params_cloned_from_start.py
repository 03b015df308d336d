import torch


def fit_linear(X, y, lr, steps):
    d = X.shape[1]
    w0 = torch.zeros(d, dtype=X.dtype, device=X.device)
    b0 = torch.zeros((), dtype=X.dtype, device=X.device)
    losses = []
    for _ in range(steps):
        w = w0.clone().requires_grad_()
        b = b0.clone().requires_grad_()
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    return w.detach(), b.detach(), losses
