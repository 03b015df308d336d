"""Exercise 10 - NumPy interop and shared memory.

Implement the two functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-10` to check your work, `grade hint exercise-10`
when you are stuck.
"""

import numpy as np
import torch


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A NumPy array with the values, shape and dtype of t.

    Works for tensors that require grad and for tensors on a GPU; t itself is left unchanged.
    """
    # TODO: what does NumPy need that a CUDA tensor, or a tensor in the autograd graph, lacks?
    raise NotImplementedError


def from_numpy_safe(a: np.ndarray) -> torch.Tensor:
    """A float32 tensor with the values of a that never shares memory with a, whatever a's dtype.

    a may be of any numeric or bool dtype, and may be a view (transposed, sliced, reversed as
    a[::-1]) or read-only.
    """
    # TODO: torch.from_numpy shares memory with a. When does .float() copy, and when not?
    raise NotImplementedError
