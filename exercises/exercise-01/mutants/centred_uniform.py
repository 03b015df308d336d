import math

import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    # Uniform numbers shifted to mean 0 and scaled to variance 1: the right mean and spread,
    # but not a normal distribution.
    return (torch.rand(fan_in, fan_out, generator=generator) - 0.5) * math.sqrt(12) * 0.01
