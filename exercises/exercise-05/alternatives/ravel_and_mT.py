import torch


def flatten_transposed(x):
    return torch.ravel(x.mT)


def to_sequence(images):
    return images.flatten(2).transpose(1, 2)
