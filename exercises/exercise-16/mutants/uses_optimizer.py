import torch


def fit_linear(X, y, lr, steps):
    n, d = X.shape
    w = torch.zeros(d, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros((), dtype=X.dtype, device=X.device, requires_grad=True)
    losses = []
    optimizer = torch.optim.SGD([w, b], lr=lr)
    for _ in range(steps):
        optimizer.zero_grad()
        loss = ((X @ w + b - y) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return w.detach(), b.detach(), losses
