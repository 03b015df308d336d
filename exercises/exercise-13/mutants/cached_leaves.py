import torch


def derivative(f, x):
    t = torch.tensor(float(x), requires_grad=True)
    f(t).backward()
    return t.grad.item()


def gradients(f, *xs):
    # Keeps one leaf per input between calls (to save making new ones): backward() adds into
    # the cached leaf's .grad on every call.
    leaves = []
    for x in xs:
        if not hasattr(x, "_cached_leaf"):
            x._cached_leaf = x.detach().requires_grad_(True)
        leaves.append(x._cached_leaf)
    f(*leaves).backward()
    return tuple(
        torch.zeros_like(leaf) if leaf.grad is None else leaf.grad.clone() for leaf in leaves
    )
