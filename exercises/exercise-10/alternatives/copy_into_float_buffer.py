"""An unusual but correct solution."""

import numpy as np
import torch


def to_numpy(t):
    return np.array(t.detach().cpu(), copy=True)


def from_numpy_safe(a):
    return torch.empty(a.shape, dtype=torch.float32).copy_(torch.from_numpy(a.copy()))
