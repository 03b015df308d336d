"""An unusual but correct solution."""

import torch


def add_batch_dim(img):
    return img.expand(1, *img.shape)


def drop_dim(x, dim):
    out = x.squeeze(dim)
    if out.dim() == x.dim():
        raise ValueError(f"dimension {dim} of shape {tuple(x.shape)} is not of size 1")
    return out


def hwc_to_chw(img):
    return torch.stack(img.unbind(dim=-1), dim=0)
