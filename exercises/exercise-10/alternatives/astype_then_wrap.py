import numpy as np
import torch


def to_numpy(t):
    return t.detach().to("cpu").clone().numpy()


def from_numpy_safe(a):
    # astype copies by default (copy=True), even when a is already float32.
    return torch.from_numpy(a.astype(np.float32))
