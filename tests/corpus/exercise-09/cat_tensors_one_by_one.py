import torch


def stack_images(images: list[torch.Tensor]) -> torch.Tensor:
    return torch.stack(images, dim=0)


def concat_features(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.cat(a, b, dim=1)


def split_heads(x: torch.Tensor, heads: int) -> torch.Tensor:
    B, T, F = x.shape
    D = F // heads
    return x.reshape(B, T, heads, D).transpose(1, 2)
