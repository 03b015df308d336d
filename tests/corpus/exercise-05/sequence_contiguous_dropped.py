import torch


def flatten_transposed(x):
    return x.t().reshape(-1)


def to_sequence(images):
    B, C, H, W = images.shape
    seq = images.permute(0, 2, 3, 1)
    seq.contiguous()
    return seq.view(B, H * W, C)
