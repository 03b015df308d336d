"""An unusual but correct solution."""

import torch


def column_means(x):
    n = x.shape[0]
    return x.T @ torch.full((n,), 1.0 / n, dtype=x.dtype, device=x.device)


def row_max(x):
    out = torch.max(x.T, dim=0)
    return out.values, out.indices


def softmax_rows(x):
    shifted = x - x.max(dim=1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)
