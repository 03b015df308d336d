import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    # t_() transposes the caller's tensor in place.
    return x.t_().reshape(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).reshape(B, H * W, C)
