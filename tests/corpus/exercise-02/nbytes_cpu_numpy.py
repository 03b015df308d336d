import torch


def describe(t):
    return {
        "shape": tuple(t.shape),
        "ndim": t.ndim,
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    # NumPy knows the size of its arrays; move to the CPU first so GPU tensors work too
    return int(t.detach().cpu().numpy().nbytes)
