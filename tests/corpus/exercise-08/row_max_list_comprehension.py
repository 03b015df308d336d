"""Exercise 08."""

import torch


def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    values = torch.tensor([row.max() for row in x])
    indices = torch.tensor([row.argmax() for row in x])
    return values, indices


def softmax_rows(x):
    shifted = x - x.max(dim=1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)
