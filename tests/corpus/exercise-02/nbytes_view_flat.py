import torch


def describe(t):
    return {"shape": tuple(t.shape), "ndim": t.dim(), "numel": t.numel(), "dtype": str(t.dtype),
            "device": str(t.device), "contiguous": t.is_contiguous(), "stride": t.stride()}


def nbytes(t):
    return t.view(-1).shape[0] * t.element_size()
