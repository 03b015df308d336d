def describe(t):
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": t.is_contiguous,  # the methods, never called
        "stride": t.stride,
    }


def nbytes(t):
    return t.numel() * t.element_size()
