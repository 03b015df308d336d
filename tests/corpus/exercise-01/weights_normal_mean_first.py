import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    # normal_(mean, std): the first argument is the mean
    return torch.empty(fan_in, fan_out).normal_(0.01, generator=generator)
