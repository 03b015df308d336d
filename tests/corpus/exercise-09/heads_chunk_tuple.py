import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    # one chunk of D features per head
    return torch.chunk(x, heads, dim=-1)
