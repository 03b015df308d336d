import torch


def derivative(f, x):
    # a central difference in float64: close to the slope, but not autograd
    h = 1e-6
    x = torch.tensor(float(x), dtype=torch.float64)
    return ((f(x + h) - f(x - h)) / (2 * h)).item()


def gradients(f, *xs):
    leaves = [x.detach().requires_grad_(True) for x in xs]
    grads = torch.autograd.grad(f(*leaves), leaves, allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g for x, g in zip(leaves, grads))
