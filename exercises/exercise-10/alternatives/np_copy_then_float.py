"""An unusual but correct solution."""

import numpy as np
import torch


def to_numpy(t):
    return t.detach().to("cpu", copy=True).numpy()


def from_numpy_safe(a):
    return torch.from_numpy(np.copy(a)).float()
