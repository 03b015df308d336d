import torch


def row_norms(x):
    return torch.linalg.vector_norm(x, dim=1)
