def describe(t):
    # Strides worked out from the shape, as if every tensor were freshly created.
    stride, step = [], 1
    for size in reversed(t.shape):
        stride.insert(0, step)
        step *= size
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": str(t.device),
        "contiguous": True,
        "stride": tuple(stride),
    }


def nbytes(t):
    return t.numel() * t.element_size()
