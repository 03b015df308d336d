import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    # int(value) drops the fraction: 2.5 becomes 2.0.
    return torch.tensor(int(value), dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    return torch.randn(fan_in, fan_out, generator=generator) * 0.01
