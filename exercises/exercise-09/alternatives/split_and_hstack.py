import torch


def stack_images(images):
    return torch.vstack([image.unsqueeze(0) for image in images])


def concat_features(a, b):
    return torch.hstack([a, b])


def split_heads(x, heads):
    d = x.shape[-1] // heads
    # split gives the heads' feature blocks in order; stack puts them on a new dim 1.
    return torch.stack(x.split(d, dim=2), dim=1)
