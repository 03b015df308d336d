import torch


def add_positions(x):
    return x + torch.arange(x.shape[0], device=x.device, dtype=x.dtype)[:, None]
