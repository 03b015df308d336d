"""An unusual but correct solution."""

import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a.T, b.T]).T


def split_heads(x, heads):
    return torch.stack(x.chunk(heads, dim=-1), dim=1)
