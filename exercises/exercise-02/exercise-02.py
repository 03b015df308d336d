"""Exercise 02 - Tensor attributes.

Implement the two functions below (each one currently raises NotImplementedError), keeping their
names and arguments. Run `grade exercise-02` to check your work, `grade hint exercise-02` when you
are stuck.
"""

import torch


def describe(t: torch.Tensor) -> dict:
    """A dict describing `t`, with exactly these keys:

    - "shape": the shape, a tuple of ints (a torch.Size is one)
    - "ndim": the number of dimensions, an int
    - "numel": the number of elements, an int
    - "dtype": the dtype as a string, e.g. "torch.float32"
    - "device": the device as a string, e.g. "cpu" or "cuda:0"
    - "contiguous": whether t is contiguous in memory, a bool
    - "stride": the strides, a tuple of ints
    """
    # TODO: every value is one attribute or method of the tensor away.
    raise NotImplementedError


def nbytes(t: torch.Tensor) -> int:
    """How many bytes the elements of `t` take: its number of elements times the size of one
    element (a (1, 3, 224, 224) float32 tensor takes 602112), as an int."""
    # TODO: how many bytes does one element of t's dtype take?
    raise NotImplementedError
