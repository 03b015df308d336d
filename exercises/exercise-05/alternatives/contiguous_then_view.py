import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    return x.t().contiguous().view(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).contiguous().view(B, H * W, C)
