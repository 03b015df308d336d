"""drop_dim: x[..., 0] after checking the size."""

import torch


def add_batch_dim(img: torch.Tensor) -> torch.Tensor:
    # unsqueeze(dim) inserts a dimension of size 1 at position dim: the batch goes first.
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError("not 1")
    return x[..., 0]


def hwc_to_chw(img: torch.Tensor) -> torch.Tensor:
    # permute moves whole dimensions; a reshape to (C, H, W) would only regroup the values.
    return img.permute(2, 0, 1)
