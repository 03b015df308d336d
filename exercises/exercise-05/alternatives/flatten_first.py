import torch


def flatten_transposed(x):
    return torch.flatten(x.mT)


def to_sequence(images):
    # Flatten the pixels first, then swap channels and pixels: a non-contiguous result is fine.
    return images.flatten(start_dim=2).transpose(1, 2)
