import torch


def describe(t):
    return {"shape": tuple(t.shape), "ndim": t.dim(), "numel": t.numel(), "dtype": str(t.dtype),
            "device": str(t.device), "contiguous": t.is_contiguous(), "stride": tuple(t.shape)}


def nbytes(t):
    return t.numel() * t.element_size()
