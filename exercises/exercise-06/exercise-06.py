"""Exercise 06 - squeeze, unsqueeze, permute.

Implement the three functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-06` to check your work, `grade hint exercise-06`
when you are stuck.
"""

import torch


def add_batch_dim(img: torch.Tensor) -> torch.Tensor:
    """Turn one image (C, H, W) into a batch of one image, of shape (1, C, H, W)."""
    # TODO: insert a dimension of size 1 in front.
    raise NotImplementedError


def drop_dim(x: torch.Tensor, dim: int) -> torch.Tensor:
    """Remove dimension `dim` of `x` (negative values count from the end), which must have
    size 1, and no other dimension. Raise ValueError when its size is not 1."""
    # TODO: what does x.squeeze() do to the other dimensions of size 1?
    raise NotImplementedError


def hwc_to_chw(img: torch.Tensor) -> torch.Tensor:
    """Turn an image stored as (H, W, C) into (C, H, W): result[c, h, w] == img[h, w, c]."""
    # TODO: move the dimensions, do not just change the shape.
    raise NotImplementedError
