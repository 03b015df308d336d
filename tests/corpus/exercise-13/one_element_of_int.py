"""Autograd basics with a helper and a main guard."""
import torch


def _leaf(x):
    return x.detach().requires_grad_()


def derivative(f, x):
    t = torch.tensor([x], requires_grad=True)
    f(t).sum().backward()
    return t.grad[0].item()


def gradients(f, *xs):
    leaves = tuple(map(_leaf, xs))
    out = f(*leaves)
    grads = torch.autograd.grad(out, leaves, allow_unused=True, materialize_grads=True)
    return tuple(grads)


if __name__ == "__main__":
    print(derivative(lambda x: x**2 + 2 * x + 1, 3.0))
