import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    # Forgot the transpose: x's own row-major order.
    return x.reshape(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).reshape(B, H * W, C)
