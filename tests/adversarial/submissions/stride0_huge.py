import torch


def double(x):
    # 2^38 elements that all alias one 4-byte storage: a few bytes on the wire, but a trusted
    # side that compared them element by element would work for minutes.
    return torch.zeros(1, dtype=x.dtype).expand(2**38)


def triple(x):
    return x * 3
