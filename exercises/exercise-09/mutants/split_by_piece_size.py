import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    # torch.split's number is a piece's size: D pieces of `heads` features.
    return torch.stack(torch.split(x, heads, dim=-1), dim=1)
