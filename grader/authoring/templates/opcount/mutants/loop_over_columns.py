import torch


def row_norms(x):
    total = torch.zeros(x.shape[0], dtype=x.dtype, device=x.device)
    for j in range(x.shape[1]):
        total = total + x[:, j] * x[:, j]
    return total.sqrt()
