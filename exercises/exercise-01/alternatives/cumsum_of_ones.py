"""An unusual but correct solution."""

import torch


def make_grid(rows, cols, device="cpu"):
    ones = torch.ones(rows * cols, device=device)
    return (ones.cumsum(dim=0) - 1).reshape(rows, cols)


def make_scalar(value):
    return torch.ones((), dtype=torch.float32).mul(value)


def init_weights(fan_in, fan_out, generator):
    return torch.randn(fan_in, fan_out, generator=generator) * 0.01
