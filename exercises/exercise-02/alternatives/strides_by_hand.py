import math


def describe(t):
    shape = tuple(int(n) for n in t.shape)
    stride = tuple(t.stride(d) for d in range(t.dim()))
    return {
        "shape": shape,
        "ndim": len(shape),
        "numel": math.prod(shape),
        "dtype": "torch." + str(t.dtype).split(".")[-1],
        "device": str(t.device),
        "contiguous": t.is_contiguous(),
        "stride": stride,
    }


def nbytes(t):
    return math.prod(t.shape) * t.element_size()
