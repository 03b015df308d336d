import torch


def to_numpy(t):
    return t.numpy(force=True)


def from_numpy_safe(a):
    return torch.tensor(a.copy(), dtype=torch.float32)
