import torch


def add_positions(x):
    return x + (torch.ones_like(x).cumsum(dim=1) - 1)
