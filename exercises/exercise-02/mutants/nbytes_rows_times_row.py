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
    # Rows times the size of one row: len() fails for a 0-dimensional t, t[0] for an empty one.
    return len(t) * t[0].numel() * t.element_size()
