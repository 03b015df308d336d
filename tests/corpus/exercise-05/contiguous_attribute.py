import torch


def flatten_transposed(x):
    y = x.transpose(0, 1)
    return y.contiguous.view(-1)


def to_sequence(images):
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).reshape(B, H * W, C)
