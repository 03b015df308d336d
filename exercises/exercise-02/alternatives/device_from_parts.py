import torch


def describe(t: torch.Tensor) -> dict:
    # The device string built by hand: a CUDA tensor's carries its index ("cuda:0"), a CPU or
    # meta tensor's is just the type ("cpu", "meta").
    name = f"cuda:{t.get_device()}" if t.is_cuda else t.device.type
    return {
        "shape": tuple(t.shape),
        "ndim": t.dim(),
        "numel": t.numel(),
        "dtype": str(t.dtype),
        "device": name,
        "contiguous": t.is_contiguous(),
        "stride": t.stride(),
    }


def nbytes(t: torch.Tensor) -> int:
    return t.numel() * t.element_size()
