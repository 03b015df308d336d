import torch


def derivative(f, x):
    h = 1e-4
    x = float(x)
    return ((f(torch.tensor(x + h)) - f(torch.tensor(x - h))) / (2 * h)).item()


def gradients(f, *xs):
    leaves = [x.detach().requires_grad_(True) for x in xs]
    grads = torch.autograd.grad(f(*leaves), leaves, allow_unused=True)
    return tuple(torch.zeros_like(l) if g is None else g for l, g in zip(leaves, grads))
