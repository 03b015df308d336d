import torch


def stack_images(images):
    return torch.stack(images, dim=0)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    # The right chunks, joined end to end along the time steps: (B, heads * T, D).
    return torch.cat(x.chunk(heads, dim=-1), dim=1)
