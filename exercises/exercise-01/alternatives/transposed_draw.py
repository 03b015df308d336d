import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(0, rows * cols, 1, device=device).float().view(rows, cols)


def make_scalar(value):
    return torch.tensor(float(value))


def init_weights(fan_in, fan_out, generator):
    # draw like nn.Linear stores weights (out, in), then transpose
    return torch.randn(fan_out, fan_in, generator=generator).T * 0.01
