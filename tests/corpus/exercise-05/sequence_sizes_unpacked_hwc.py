import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    return x.t().reshape(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    B, H, W, C = images.shape
    return images.permute(0, 2, 3, 1).reshape(B, H * W, C)
