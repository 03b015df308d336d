"""An unusual but correct solution."""

import torch


def column_means(x):
    return torch.einsum("ij->j", x) / x.shape[0]


def row_max(x):
    values, indices = x.max(dim=1)
    return values, indices


def softmax_rows(x):
    # softmax_i = 1 / sum_j exp(x_j - x_i): a term overflows only where the answer is 0
    return 1.0 / torch.exp(x.unsqueeze(1) - x.unsqueeze(2)).sum(dim=-1)
