import numpy as np
import torch


def to_numpy(t):
    # Switches off the caller's requires_grad instead of detaching a view.
    t.requires_grad_(False)
    return t.cpu().numpy()


def from_numpy_safe(a):
    return torch.from_numpy(np.array(a, dtype=np.float32))
