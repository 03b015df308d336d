"""Exercise 08."""

import torch


def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    values, indices = x.max(dim=1)
    return values, indices


def softmax_rows(x):
    x -= x.max(dim=1, keepdim=True).values
    e = torch.exp(x)
    return e / e.sum(dim=1, keepdim=True)
