import math

import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    # Xavier-style: keep the variance of the outputs at 1
    return torch.randn(fan_in, fan_out, generator=generator) * (1 / math.sqrt(fan_in))
