import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).view(rows, cols)


def make_scalar(value):
    return torch.tensor(float(value))


def init_weights(fan_in, fan_out, generator):
    # small random weights
    w = torch.rand(fan_in, fan_out, generator=generator)
    return w * 0.01
