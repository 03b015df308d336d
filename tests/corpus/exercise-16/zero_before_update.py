import torch


def fit_linear(X, y, lr, steps):
    n, d = X.shape
    w = torch.zeros(d, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for step in range(steps):
        pred = X @ w + b
        loss = ((pred - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        # reset the gradients for the next step
        w.grad.zero_()
        b.grad.zero_()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
    return w.detach(), b.detach(), losses
