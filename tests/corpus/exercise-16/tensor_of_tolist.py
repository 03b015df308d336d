import torch


def fit_linear(X, y, lr, steps):
    d = X.shape[1]
    w = torch.zeros(d, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w = torch.tensor(w.tolist(), requires_grad=True)
        b = torch.tensor(b.item(), requires_grad=True)
    return w.detach(), b.detach(), losses
