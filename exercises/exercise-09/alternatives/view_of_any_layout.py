"""An unusual but correct solution."""

import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    B, T, F = x.shape
    return x.view(B, T, heads, F // heads).transpose(1, 2)
