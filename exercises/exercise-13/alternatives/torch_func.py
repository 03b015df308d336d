import torch
from torch.func import grad


def derivative(f, x):
    return grad(f)(torch.tensor(float(x))).item()


def gradients(f, *xs):
    # torch.func.grad works on the values only: no requires_grad, no .grad, zeros for unused inputs.
    return tuple(grad(f, argnums=tuple(range(len(xs))))(*xs))
