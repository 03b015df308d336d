import torch


def make_grid(rows: int, cols: int, device="cpu") -> torch.Tensor:
    return torch.linspace(0, rows * cols, rows * cols, device=device).reshape(rows, cols)


def make_scalar(value) -> torch.Tensor:
    return torch.tensor(value, dtype=torch.float32)


def init_weights(fan_in: int, fan_out: int, generator: torch.Generator) -> torch.Tensor:
    return torch.randn(fan_in, fan_out, generator=generator) * 0.01
