"""Exercise 10."""

import numpy as np
import torch


def to_numpy(t):
    return t.cpu().numpy()


def from_numpy_safe(a):
    return torch.from_numpy(a).float()
