def describe(t):
    return {
        "shape": t.size(),
        "ndim": t.ndimension(),
        "numel": t.nelement(),
        "dtype": repr(t.dtype),
        "device": f"{t.device}",
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    # The tensor's own bytes, numel * itemsize, from its metadata.
    return t.nbytes
