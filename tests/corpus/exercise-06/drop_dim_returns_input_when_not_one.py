"""Exercise 06."""

import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    # nothing to drop: give x back unchanged
    if x.shape[dim] != 1:
        return x
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
