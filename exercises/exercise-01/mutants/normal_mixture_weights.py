import math

import torch


def make_grid(rows, cols, device="cpu"):
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value):
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in, fan_out, generator):
    # Half the weights from a narrower normal, half from a wider one: mean 0 and standard
    # deviation 0.01 overall, but a mixture of normals is not a normal distribution.
    narrow, wide = 0.75, math.sqrt(2 - 0.75**2)
    pick = torch.rand(fan_in, fan_out, generator=generator) < 0.5
    scale = torch.where(pick, narrow, wide)
    return torch.randn(fan_in, fan_out, generator=generator) * scale * 0.01
