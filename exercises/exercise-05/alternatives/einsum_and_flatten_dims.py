import torch


def flatten_transposed(x):
    return x.mT.ravel()


def to_sequence(images):
    # einsum names the new order of the dims; flatten(1, 2) merges H and W.
    return torch.einsum("bchw->bhwc", images).flatten(1, 2)
