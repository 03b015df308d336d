import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    # Cuts the features as (D, heads): head h gets features h, h + heads, ...
    B, T, F = x.shape
    return x.reshape(B, T, F // heads, heads).permute(0, 3, 1, 2)
