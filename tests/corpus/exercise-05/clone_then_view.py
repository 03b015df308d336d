import torch


def flatten_transposed(x):
    # clone() to get a fresh copy, then view it flat
    return x.transpose(0, 1).clone().view(-1)


def to_sequence(images):
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).reshape(B, H * W, C)
