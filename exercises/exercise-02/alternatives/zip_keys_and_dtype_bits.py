"""Exercise 02 - a correct alternative: The seven values zipped with a module-level tuple of keys; the element size from the dtype's bits."""

import torch
from torch import Tensor

KEYS = ("shape", "ndim", "numel", "dtype", "device", "contiguous", "stride")


def describe(t: Tensor) -> dict:
    vals = (
        t.shape,
        t.ndim,
        t.nelement(),
        str(t.dtype),
        str(t.device),
        t.is_contiguous(),
        t.stride(),
    )
    return dict(zip(KEYS, vals))


def nbytes(t: Tensor) -> int:
    bits = (
        torch.finfo(t.dtype).bits
        if t.dtype.is_floating_point
        else (8 if t.dtype == torch.bool else torch.iinfo(t.dtype).bits)
    )
    return t.numel() * bits // 8
