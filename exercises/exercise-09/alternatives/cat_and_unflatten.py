import torch


def stack_images(images):
    return torch.cat([img.unsqueeze(0) for img in images], dim=0)


def concat_features(a, b):
    return torch.hstack((a, b))


def split_heads(x, heads):
    # unflatten cuts the last dim into (heads, -1); permute returns a non-contiguous view.
    return x.unflatten(-1, (heads, -1)).permute(0, 2, 1, 3)
