import torch


def derivative(f, x):
    t = torch.as_tensor(x, dtype=torch.get_default_dtype()).requires_grad_()
    (dx,) = torch.autograd.grad(f(t), [t])
    return dx.item()


def gradients(f, *xs):
    # Uses the caller's tensors themselves for the duration of the call, then puts every
    # requires_grad flag and .grad back exactly as it was.
    saved = [(x.requires_grad, x.grad) for x in xs]
    try:
        for x in xs:
            x.grad = None
            x.requires_grad_(True)
        f(*xs).backward()
        return tuple(x.grad if x.grad is not None else torch.zeros_like(x) for x in xs)
    finally:
        for x, (flag, old) in zip(xs, saved):
            x.requires_grad_(flag)
            x.grad = old
