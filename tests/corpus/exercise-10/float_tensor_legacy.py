import numpy as np
import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    return torch.FloatTensor(np.copy(a))
