"""Exercise 06: raise err from None of the ValueError it raised (only the context hidden)."""

import torch


def add_batch_dim(img: torch.Tensor) -> torch.Tensor:
    # unsqueeze(dim) inserts a dimension of size 1 at position dim: the batch goes first.
    return img.unsqueeze(0)


def drop_dim(x, dim):
    try:
        if x.shape[dim] != 1:
            raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    except ValueError as err:
        raise err from None
    return x.squeeze(dim)


def hwc_to_chw(img: torch.Tensor) -> torch.Tensor:
    # permute moves whole dimensions; a reshape to (C, H, W) would only regroup the values.
    return img.permute(2, 0, 1)
