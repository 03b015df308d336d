import numpy as np
import torch


def to_numpy(t):
    # .numpy() refuses tensors that require grad (and CUDA tensors).
    return t.numpy()


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
