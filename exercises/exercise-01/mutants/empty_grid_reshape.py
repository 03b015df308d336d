import torch


def make_grid(rows, cols, device="cpu"):
    # reshape(rows, -1) cannot work out -1 for an empty grid of 0 rows.
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, -1)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    return torch.randn(fan_in, fan_out, generator=generator) * 0.01
