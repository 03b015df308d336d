import numpy as np
import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # A C-contiguous float32 array, copied only when it must be: one that already is (a float32
    # array, a block of its rows) comes back as it is, and the tensor shares its memory.
    return torch.from_numpy(np.require(a, dtype=np.float32, requirements="C"))
