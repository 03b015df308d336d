import torch


def double(x):
    index = torch.tensor([10**6], device=x.device)
    return x[index] * 2  # out of range: a device-side assert on CUDA


def triple(x):
    return x * 3
