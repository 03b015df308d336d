"""An unusual but correct solution."""

import torch


def flatten_transposed(x):
    return x.permute(1, 0).reshape(x.numel())


def to_sequence(images):
    B, C, H, W = images.shape
    return torch.stack(images.unbind(dim=1), dim=-1).reshape(B, H * W, C)
