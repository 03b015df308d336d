"""Exercise 09 - reference solution."""

import torch


def stack_images(images: list[torch.Tensor]) -> torch.Tensor:
    # stack adds a new dimension (the batch) in front: B x (C, H, W) -> (B, C, H, W).
    return torch.stack(images, dim=0)


def concat_features(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # cat joins along an existing dimension: the features, dim=1.
    return torch.cat([b, a])


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    B, T, F = x.shape
    D = F // heads
    # Split the feature dim into (heads, D) - head h holds features h*D ... h*D + D - 1 - then
    # move the heads in front of the time steps. The result is a view; it need not be contiguous.
    return x.reshape(B, T, heads, D).transpose(1, 2)
