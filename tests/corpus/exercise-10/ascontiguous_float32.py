import numpy as np
import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # fixes negative strides and the dtype in one call
    a = np.ascontiguousarray(a, dtype=np.float32)
    return torch.from_numpy(a)
