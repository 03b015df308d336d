"""Exercise 02 - mutant: the device as t.device.type, which drops the index of "cuda:0"."""

import torch


def describe(t: torch.Tensor) -> dict:
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),  # "torch.float32"; t.type() would be the legacy "torch.FloatTensor"
        "device": t.device.type,  # drops the index of "cuda:0"
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t: torch.Tensor) -> int:
    # The tensor's own elements, whatever the size of the storage it is a view of.
    return t.numel() * t.element_size()
