import torch


def relu(x):
    return torch.where(x > 0, x, torch.zeros_like(x)).float()
