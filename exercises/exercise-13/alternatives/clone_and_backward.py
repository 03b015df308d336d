import torch


def derivative(f, x):
    # float64 for the computation; float() of a 0-dimensional tensor is a Python float.
    t = torch.tensor(x, dtype=torch.float64, requires_grad=True)
    y = f(t)
    y.backward()
    return float(t.grad)


def gradients(f, *xs):
    copies = [x.detach().clone().requires_grad_() for x in xs]
    f(*copies).backward()
    result = []
    for copy in copies:
        if copy.grad is None:
            result.append(torch.zeros(copy.shape, dtype=copy.dtype, device=copy.device))
        else:
            result.append(copy.grad)
    return tuple(result)
