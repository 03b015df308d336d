import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    B, T, F = x.shape
    D = F // heads
    x = x.reshape(B, T, D, heads)
    return x.permute(0, 3, 1, 2)  # (B, heads, T, D)
