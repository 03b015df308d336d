import torch


def standardize(x):
    std, mean = torch.std_mean(x, dim=0)
    return (x - mean) / std
