"""An unusual but correct solution."""

import torch


def describe(t):
    return dict(
        shape=t.shape,
        ndim=t.ndim,
        numel=t.shape.numel(),
        dtype=str(t.dtype),
        device=str(t.device),
        contiguous=t.is_contiguous(),
        stride=tuple(t.stride()),
    )


def nbytes(t):
    return torch.empty((), dtype=t.dtype, device="meta").element_size() * t.numel()
