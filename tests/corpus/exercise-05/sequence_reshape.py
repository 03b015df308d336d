import torch


def flatten_transposed(x):
    return x.t().reshape(-1)


def to_sequence(images):
    B, C, H, W = images.shape
    # (B, C, H, W) -> (B, H*W, C)
    return images.reshape(B, H * W, C)
