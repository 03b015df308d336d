import torch


def row_norms(x):
    return torch.einsum("ij,ij->i", x, x).sqrt()
