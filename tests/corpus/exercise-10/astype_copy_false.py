import numpy as np
import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    b = a.astype(np.float32, copy=False)  # no extra copy when it is float32 already
    if not b.flags.c_contiguous:
        b = b.copy()
    return torch.from_numpy(b)
