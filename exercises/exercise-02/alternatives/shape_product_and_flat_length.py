"""An unusual but correct solution."""

import torch


def describe(t):
    return {
        "shape": tuple(int(s) for s in t.shape),
        "ndim": len(t.stride()),
        "numel": int(torch.tensor(t.shape, dtype=torch.int64).prod()),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    return len(t.reshape(-1)) * t.element_size()
