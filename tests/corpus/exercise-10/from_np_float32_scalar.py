import numpy as np
import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # convert to float32 first, then wrap it
    return torch.from_numpy(np.float32(a)).clone()
