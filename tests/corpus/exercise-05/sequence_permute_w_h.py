import torch


def flatten_transposed(x):
    return x.t().reshape(-1)


def to_sequence(images):
    B, C, H, W = images.shape
    # channels last, then one row per pixel
    return images.permute(0, 3, 2, 1).reshape(B, H * W, C)
