import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # An independent copy with positive strides, but NumPy's dtype comes along: float64 stays
    # float64, integers stay integers.
    return torch.from_numpy(a.copy())
