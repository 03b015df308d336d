"""An unusual but correct solution."""

import torch


def make_grid(rows, cols, device="cpu"):
    return torch.tensor(range(rows * cols), dtype=torch.float32, device=device).view(rows, cols)


def make_scalar(value):
    return torch.zeros(()) + value


def init_weights(fan_in, fan_out, generator):
    w = torch.randn(fan_in * fan_out, generator=generator).view(fan_in, fan_out)
    return w.mul_(0.01)
