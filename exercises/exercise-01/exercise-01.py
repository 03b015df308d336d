"""Exercise 01 - Creating tensors.

Implement the three functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-01` to check your work, `grade hint exercise-01`
when you are stuck.
"""

import torch


def make_grid(rows: int, cols: int, device="cpu") -> torch.Tensor:
    """A float32 tensor of shape (rows, cols) holding 0, 1, 2, ... in row-major order, on `device`."""
    # TODO: create the values directly on `device`, with the right dtype.
    raise NotImplementedError


def make_scalar(value) -> torch.Tensor:
    """A 0-dimensional float32 tensor equal to `value` (an int or a float)."""
    # TODO: mind the difference between torch.Tensor(...) and torch.tensor(...).
    raise NotImplementedError


def init_weights(fan_in: int, fan_out: int, generator: torch.Generator) -> torch.Tensor:
    """Float32 weights of shape (fan_in, fan_out): standard normal samples times 0.01,
    drawn with `generator`."""
    # TODO: which of torch.rand / torch.randn draws from a standard normal distribution?
    raise NotImplementedError
