"""Exercise 12 - Device-agnostic code.

These three helpers work on the author's laptop, which has no GPU, and break as soon as their
inputs live on another device (or have another dtype, or come in a tuple). Find the bugs and fix
them, keeping the functions' names, arguments and return values. Run `grade exercise-12` to check
your work.
"""

import torch


def add_noise(x: torch.Tensor, std: float) -> torch.Tensor:
    """x plus Gaussian noise of standard deviation `std`, on x's device and with x's dtype."""
    return x + std * torch.randn(x.shape)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    """A bool mask of shape (B, max_len): True where the position is < that row's length.

    `lengths` is an int64 tensor of shape (B,).
    """
    return torch.arange(max_len) < lengths[:, None]


def to_device(batch, device):
    """The same nested structure of dicts, lists and tuples, with every tensor moved to `device`.

    Leaves that are not tensors (numbers, strings, None, ...) are returned unchanged.
    """
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    return batch
