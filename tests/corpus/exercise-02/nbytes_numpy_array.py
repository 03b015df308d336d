import torch


def describe(t):
    return {
        "shape": tuple(t.size()),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": t.is_contiguous(),
        "stride": tuple(t.stride()),
    }


def nbytes(t):
    arr = t.numpy()
    return arr.size * arr.itemsize
