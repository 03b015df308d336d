import torch


def make_grid(rows, cols, device="cpu"):
    # linspace includes its end: n evenly spaced values from 0 to n - 1 are 0, 1, ..., n - 1.
    n = rows * cols
    return torch.linspace(0, n - 1, n, device=device).reshape(rows, cols)


def make_scalar(value):
    # A 0-dimensional tensor of the default dtype, float32, even for an int.
    return torch.scalar_tensor(value)


def init_weights(fan_in, fan_out, generator):
    return torch.nn.init.normal_(torch.empty(fan_in, fan_out), std=0.01, generator=generator)
