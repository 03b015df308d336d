import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    # dim=0 puts b's rows under a's.
    return torch.cat([a, b], dim=0)


def split_heads(x, heads):
    B, T, F = x.shape
    return x.reshape(B, T, heads, F // heads).transpose(1, 2)
