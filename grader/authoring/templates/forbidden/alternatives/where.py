import torch


def relu(x):
    return torch.where(x < 0, torch.zeros_like(x), x)
