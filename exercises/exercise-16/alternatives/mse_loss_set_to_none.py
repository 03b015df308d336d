import torch
import torch.nn.functional as F


def fit_linear(X, y, lr, steps):
    w = X.new_zeros(X.shape[1]).requires_grad_()
    b = X.new_zeros(()).requires_grad_()
    losses = []
    for _ in range(steps):
        loss = F.mse_loss(X.matmul(w) + b, y)
        losses.append(float(loss))
        loss.backward()
        with torch.no_grad():
            w.sub_(lr * w.grad)
            b.sub_(b.grad, alpha=lr)
        w.grad = None
        b.grad = None
    return w.detach(), b.detach(), losses
