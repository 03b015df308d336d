import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # .float() returns the same tensor when a is already float32: shared memory.
    return torch.from_numpy(a).float()
