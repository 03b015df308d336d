import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    B, T, F = x.shape
    D = F // heads
    out = x.view(B, T, heads, D)
    out.transpose(1, 2)
    return out
