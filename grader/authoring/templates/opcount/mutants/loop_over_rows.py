import torch


def row_norms(x):
    return torch.stack([(row * row).sum().sqrt() for row in x])
