def describe(t):
    return {
        "shape": t.size(),
        "ndim": t.ndimension(),
        "numel": len(t.flatten()),
        "dtype": repr(t.dtype),
        "device": f"{t.device}",
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    return t.shape.numel() * t.dtype.itemsize
