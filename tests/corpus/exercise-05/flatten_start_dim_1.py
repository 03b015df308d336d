import torch


def flatten_transposed(x):
    return x.T.flatten(start_dim=1)


def to_sequence(images):
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).reshape(B, H * W, C)
