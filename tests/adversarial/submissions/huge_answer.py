import torch


def double(x):
    return torch.zeros(300 * 2**20)  # 1.2 GB of float32


def triple(x):
    return x * 3
