import torch


def stack_images(images):
    return torch.stack(tuple(images))


def concat_features(a, b):
    out = a.new_empty(a.shape[0], a.shape[1] + b.shape[1])
    out[:, : a.shape[1]] = a
    out[:, a.shape[1] :] = b
    return out


def split_heads(x, heads):
    B, T, F = x.shape
    return torch.einsum("bthd->bhtd", x.reshape(B, T, heads, F // heads))
