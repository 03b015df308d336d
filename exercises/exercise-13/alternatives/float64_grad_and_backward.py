"""a float64 tensor and autograd.grad for derivative, float(g); requires_grad = True on clones and backward() for gradients."""

import torch as T


def derivative(f, x: float) -> float:
    t = T.tensor(x, dtype=T.float64, requires_grad=True)
    y = f(t)
    (g,) = T.autograd.grad(y, t)
    return float(g)


def gradients(f, *xs):
    leaves = []
    for x in xs:
        leaf = x.detach().clone()
        leaf.requires_grad = True
        leaves.append(leaf)
    f(*leaves).backward()
    return tuple(T.zeros_like(leaf) if leaf.grad is None else leaf.grad for leaf in leaves)
