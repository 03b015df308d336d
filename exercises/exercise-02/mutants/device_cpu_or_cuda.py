def describe(t):
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        # Only two devices thought of, and without the index: "cuda" for cuda:0, and "cpu" for
        # a meta (or any other) tensor.
        "device": "cuda" if t.is_cuda else "cpu",
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t):
    return t.numel() * t.element_size()
