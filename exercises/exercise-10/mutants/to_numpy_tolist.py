import numpy as np
import torch


def to_numpy(t):
    # Python floats are float64: the dtype is lost on the way.
    return np.array(t.detach().cpu().tolist())


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
