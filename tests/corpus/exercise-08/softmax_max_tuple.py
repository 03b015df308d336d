import torch


def column_means(x):
    return x.mean(dim=0)


def row_max(x):
    values, indices = torch.max(x, dim=1)
    return values, indices


def softmax_rows(x):
    m = torch.max(x, dim=1, keepdim=True)
    e = torch.exp(x - m)
    return e / e.sum(dim=1, keepdim=True)
