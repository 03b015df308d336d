"""drop_dim: raise RuntimeError where ValueError was asked."""

import torch


def add_batch_dim(img: torch.Tensor) -> torch.Tensor:
    # unsqueeze(dim) inserts a dimension of size 1 at position dim: the batch goes first.
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise RuntimeError("size is not 1")
    return x.squeeze(dim)


def hwc_to_chw(img: torch.Tensor) -> torch.Tensor:
    # permute moves whole dimensions; a reshape to (C, H, W) would only regroup the values.
    return img.permute(2, 0, 1)
