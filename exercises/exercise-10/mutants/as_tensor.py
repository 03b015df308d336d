import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # as_tensor avoids copying whenever it can: a float32 array is shared.
    return torch.as_tensor(a, dtype=torch.float32)
