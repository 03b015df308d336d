import numpy as np
import torch


def to_numpy(t):
    # detach from the graph, bring it to the CPU, and make sure it is float32 for NumPy
    return t.detach().cpu().float().numpy()


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
