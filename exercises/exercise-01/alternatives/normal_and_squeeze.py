import torch


def make_grid(rows, cols, device="cpu"):
    n = rows * cols
    return torch.linspace(0, n - 1, n, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.as_tensor([value], dtype=torch.float32).squeeze()


def init_weights(fan_in, fan_out, generator):
    return torch.normal(0.0, 0.01, size=(fan_in, fan_out), generator=generator)
