import torch
from torch import nn


def fit_linear(X, y, lr, steps):
    # Column vectors throughout, compared with y as a column too: (n, 1) against (n, 1).
    n, d = X.shape
    target = y.view(-1, 1) if y.is_contiguous() else y.reshape(-1, 1)
    w = torch.zeros(d, 1, dtype=X.dtype, device=X.device, requires_grad=True)
    b = torch.zeros(1, dtype=X.dtype, device=X.device, requires_grad=True)
    criterion = nn.MSELoss()
    losses = []
    for _ in range(steps):
        w.grad = b.grad = None
        loss = criterion(X @ w + b, target)
        losses.append(loss.item())
        loss.backward()
        with torch.no_grad():
            for p in (w, b):
                p -= lr * p.grad
    return w.detach().view(d).clone(), b.detach().reshape(()).clone(), losses
