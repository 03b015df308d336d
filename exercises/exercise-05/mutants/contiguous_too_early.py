import torch


def flatten_transposed(x: torch.Tensor) -> torch.Tensor:
    # .contiguous() before .t() does not help: .t() makes it non-contiguous again.
    return x.contiguous().t().view(-1)


def to_sequence(images: torch.Tensor) -> torch.Tensor:
    B, C, H, W = images.shape
    return images.contiguous().permute(0, 2, 3, 1).view(B, -1, C)
