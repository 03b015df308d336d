import torch


def make_grid(rows, cols, device="cpu"):
    grid = torch.empty(rows, cols, device=device)
    for r in range(rows):
        grid[r] = torch.arange(r * cols, (r + 1) * cols, device=device)
    return grid


def make_scalar(value):
    return torch.zeros(()).add_(float(value))


def init_weights(fan_in, fan_out, generator):
    w = torch.empty(fan_in, fan_out)
    w.normal_(generator=generator)
    return w.mul_(0.01)
