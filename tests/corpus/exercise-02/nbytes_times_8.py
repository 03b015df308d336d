"""nbytes: t.numel() * 8"""

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
    # a float takes 8 bytes
    return t.numel() * 8
