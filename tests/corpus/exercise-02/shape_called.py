import torch


def describe(t: torch.Tensor) -> dict:
    return {
        "shape": t.shape(),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),  # "torch.float32"; t.type() would be the legacy "torch.FloatTensor"
        "device": str(t.device),  # "cpu", "cuda:0", "meta"
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()
