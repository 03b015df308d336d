"""to_numpy: np.asarray of the detached tensor (no .cpu())."""
import math

import numpy as np
import torch


def to_numpy(t):
    return np.asarray(t.detach())


def from_numpy_safe(a: np.ndarray) -> torch.Tensor:
    # np.array(..., dtype=np.float32) always makes a new array (copy=True is its default), with
    # positive strides, so the tensor shares memory with that copy and never with `a`.
    # torch.from_numpy(a).float() would share `a` whenever it is already float32, and
    # torch.from_numpy / torch.as_tensor / torch.tensor all refuse negative strides (a[::-1]).
    return torch.from_numpy(np.array(a, dtype=np.float32))
