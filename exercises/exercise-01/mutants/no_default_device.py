import torch


def make_grid(rows, cols, device):
    # No default: make_grid(2, 3) raises TypeError.
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    return torch.randn(fan_in, fan_out, generator=generator) * 0.01
