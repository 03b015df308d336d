import torch


def double(x):
    big = torch.empty(400 * 2**30, dtype=torch.uint8, device=x.device)
    big.fill_(1)
    return x * 2


def triple(x):
    return x * 3
