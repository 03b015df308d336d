import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    return x.t().reshape(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    # transpose(1, 3) gives (B, W, H, C): pixels in column-major order.
    B, C, H, W = images.shape
    return images.transpose(1, 3).reshape(B, H * W, C)
