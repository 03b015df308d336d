import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    return x.t().reshape(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    # reshape is not a permute: the right shape, the channels scrambled.
    B, C, H, W = images.shape
    return images.reshape(B, H * W, C)
