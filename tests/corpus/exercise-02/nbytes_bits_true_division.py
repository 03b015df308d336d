"""Exercise 02."""

import torch


def describe(t):
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    if t.dtype.is_floating_point:
        bits = torch.finfo(t.dtype).bits
    else:
        bits = torch.iinfo(t.dtype).bits
    return t.numel() * bits / 8
