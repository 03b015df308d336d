"""Exercise 02."""

import torch


def describe(t):
    strides = t.stride()
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        # contiguous means the strides go down from left to right
        "contiguous": list(strides) == sorted(strides, reverse=True),
        "stride": strides,
    }


def nbytes(t):
    return t.numel() * t.element_size()
