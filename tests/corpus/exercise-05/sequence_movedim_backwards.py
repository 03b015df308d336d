import torch


def flatten_transposed(x):
    return x.t().reshape(-1)


def to_sequence(images):
    B, C, H, W = images.shape
    return images.movedim(3, 1).reshape(B, H * W, C)
