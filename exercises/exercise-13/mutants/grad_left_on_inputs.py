import torch


def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    f(t).backward()
    return t.grad.item()


def gradients(f, *xs):
    flags = [x.requires_grad for x in xs]
    for x in xs:
        x.requires_grad_(True)
        x.grad = None
    f(*xs).backward()
    grads = tuple(torch.zeros_like(x) if x.grad is None else x.grad.clone() for x in xs)
    for x, flag in zip(xs, flags):
        x.requires_grad_(flag)  # the flag is restored, but x.grad keeps the new gradient
    return grads
