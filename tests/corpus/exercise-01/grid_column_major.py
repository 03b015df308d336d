"""make_grid: the numbers laid out as (cols, rows), then transposed (filled by columns)."""


import torch


def make_grid(rows: int, cols: int, device="cpu") -> torch.Tensor:
    return torch.arange(rows * cols, dtype=torch.float32, device=device).reshape(cols, rows).t()


def make_scalar(value) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in: int, fan_out: int, generator: torch.Generator) -> torch.Tensor:
    return torch.randn(fan_in, fan_out, generator=generator) * 0.01
