import torch


def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    indices = x.argmax(dim=1)
    values = x[:, indices]
    return values, indices


def softmax_rows(x):
    shifted = x - x.max(dim=1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)
