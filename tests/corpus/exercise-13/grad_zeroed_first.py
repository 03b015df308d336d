"""derivative zeroes the fresh leaf's .grad before backward(): it is still None."""

import torch

def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    t.grad.zero_()
    f(t).backward()
    return t.grad.item()

def gradients(f, *xs):
    leaves = [x.detach().requires_grad_(True) for x in xs]
    grads = torch.autograd.grad(f(*leaves), leaves, allow_unused=True)
    return tuple(torch.zeros_like(l) if g is None else g for l, g in zip(leaves, grads))
