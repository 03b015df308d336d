"""Exercise 06."""

import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if dim >= x.dim():
        raise ValueError(f"no dimension {dim}")
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
