"""init_weights as (fan_out, fan_in), the way nn.Linear stores its weight."""


import torch


def make_grid(rows: int, cols: int, device="cpu") -> torch.Tensor:
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(rows, cols)


def make_scalar(value) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in: int, fan_out: int, generator: torch.Generator) -> torch.Tensor:
    return torch.randn(fan_out, fan_in, generator=generator) * 0.01
