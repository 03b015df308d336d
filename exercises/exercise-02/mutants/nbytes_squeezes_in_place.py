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
    # squeeze_() (with the underscore) drops the size-1 dimensions of the caller's tensor itself.
    t.squeeze_()
    return t.numel() * t.element_size()
