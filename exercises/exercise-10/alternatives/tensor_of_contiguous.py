import torch


def to_numpy(t):
    # force=True detaches and moves to the CPU when needed.
    return t.numpy(force=True)


def from_numpy_safe(a):
    # torch.tensor always copies; a.copy() first, because torch.tensor refuses negative strides.
    return torch.tensor(a.copy(), dtype=torch.float32)
