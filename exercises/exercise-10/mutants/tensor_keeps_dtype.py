import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # A copy, but NumPy's float64 comes along.
    return torch.tensor(a)
