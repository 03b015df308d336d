import numpy as np
import torch


def to_numpy(t):
    return np.asarray(t.detach().to("cpu"))


def from_numpy_safe(a):
    return torch.from_numpy(np.copy(a, order="C")).to(torch.float32)
