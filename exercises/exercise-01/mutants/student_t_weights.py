import math

import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    # Student's t with 10 degrees of freedom, scaled to standard deviation 0.01: symmetric,
    # mean 0 and the right spread, but heavier tails than the normal distribution.
    df = 10
    z = torch.randn(fan_in, fan_out, generator=generator)
    chi2 = (torch.randn(df, fan_in, fan_out, generator=generator) ** 2).sum(0)
    return z / torch.sqrt(chi2 / df) * math.sqrt((df - 2) / df) * 0.01
