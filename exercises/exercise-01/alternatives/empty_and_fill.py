import torch


def make_grid(rows, cols, device="cpu"):
    grid = torch.empty(rows, cols, device=device)
    grid.view(-1).copy_(torch.arange(rows * cols, device=device))
    return grid


def make_scalar(value):
    return torch.as_tensor(value, dtype=torch.float32).reshape(())


def init_weights(fan_in, fan_out, generator):
    w = torch.empty(fan_in, fan_out)
    w.normal_(mean=0.0, std=1.0, generator=generator)
    return w.mul(0.01)
