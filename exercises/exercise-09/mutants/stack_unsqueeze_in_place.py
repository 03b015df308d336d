import torch


def stack_images(images):
    # unsqueeze_ (with the underscore) turns the caller's images into (1, C, H, W).
    return torch.cat([img.unsqueeze_(0) for img in images], dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    B, T, F = x.shape
    return x.reshape(B, T, heads, F // heads).transpose(1, 2)
