import numpy as np
import torch


def to_numpy(t):
    return np.asarray(t.detach().cpu())


def from_numpy_safe(a):
    # The tensor shares memory with the private copy only, never with a.
    return torch.from_numpy(a.copy()).to(torch.float32)
