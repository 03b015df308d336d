"""Exercise 08."""

import torch


def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    values, indices = x.max(dim=1)
    return values, indices


def softmax_rows(x):
    shifted = x - x.mean(dim=1, keepdim=True)
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)
