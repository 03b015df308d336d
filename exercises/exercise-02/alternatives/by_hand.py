import math


def describe(t):
    info = {}
    info["shape"] = tuple(int(s) for s in t.shape)
    info["ndim"] = len(t.shape)
    info["numel"] = math.prod(t.shape)
    info["dtype"] = f"{t.dtype}"
    info["device"] = t.device.__str__()
    info["contiguous"] = t.is_contiguous()
    info["stride"] = tuple(t.stride(d) for d in range(t.dim()))
    return info


def nbytes(t):
    return math.prod(t.shape) * t.dtype.itemsize
