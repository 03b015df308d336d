import torch


def stack_images(images):
    return torch.cat([img[None] for img in images], dim=0)


def concat_features(a, b):
    return torch.concat((a, b), dim=-1)


def split_heads(x, heads):
    return x.unflatten(-1, (heads, -1)).swapaxes(1, 2)
