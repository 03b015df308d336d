import torch


def make_grid(rows, cols, device="cpu"):
    r = torch.arange(rows, device=device).unsqueeze(1)
    c = torch.arange(cols, device=device).unsqueeze(0)
    return (r * cols + c).to(torch.float32)


def make_scalar(value):
    return torch.full((), float(value))


def init_weights(fan_in, fan_out, generator):
    return torch.normal(0.0, 0.01, size=(fan_in, fan_out), generator=generator)
