import numpy as np
import torch


def to_numpy(t):
    # detach() for tensors that require grad, but no .cpu(): a CUDA tensor cannot become an array.
    return t.detach().numpy()


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
