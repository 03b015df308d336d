"""Exercise 10."""

import numpy as np
import torch


def to_numpy(t):
    return t.detach().cpu().numpy().tolist()


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
