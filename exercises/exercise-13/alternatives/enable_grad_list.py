"""requires_grad_(True) after torch.tensor, grad.detach().cpu().item(); enable_grad and a loop filling in zeros."""

import torch


def derivative(f, x: float) -> float:
    t = torch.tensor(float(x)).requires_grad_(True)
    y = f(t)
    y.backward()
    return t.grad.detach().cpu().item()


def gradients(f, *xs):
    with torch.enable_grad():
        leaves = [x.clone().detach().requires_grad_(True) for x in xs]
        y = f(*leaves)
        grads = torch.autograd.grad([y], leaves, allow_unused=True)
    result = []
    for leaf, g in zip(leaves, grads):
        result.append(g if g is not None else torch.zeros_like(leaf))
    return tuple(result)
