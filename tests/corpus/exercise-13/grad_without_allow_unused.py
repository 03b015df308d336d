import torch


def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    f(t).backward()
    return t.grad.item()


def gradients(f, *xs):
    leaves = [x.detach().clone().requires_grad_(True) for x in xs]
    out = f(*leaves)
    grads = torch.autograd.grad(out, leaves)
    return tuple(grads)
