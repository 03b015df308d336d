import torch


def describe(t):
    return dict(
        shape=t.size(),
        ndim=t.ndimension(),
        numel=torch.numel(t),
        dtype=repr(t.dtype),
        device=f"{t.device}",
        contiguous=bool(t.is_contiguous()),
        stride=tuple(t.stride()),
    )


def nbytes(t):
    return t.nbytes
