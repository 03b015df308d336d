import torch


def stack_images(images):
    return torch.stack(images)


def concat_features(a, b):
    return torch.cat((a, b), 1)


def split_heads(x, heads):
    B, T, F = x.shape
    # (B, T, heads, D): move T (dim 1) to the end, heads to position 1
    return x.view(B, T, heads, F // heads).permute(0, 2, 3, 1)
