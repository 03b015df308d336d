import torch

def column_means(x):
    return x.mean(dim=0)

def row_max(x):
    return x.max(dim=1)

def softmax_rows(x):
    return torch.exp(x - torch.logsumexp(x, dim=1))
