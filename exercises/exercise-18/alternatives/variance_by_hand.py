"""torch.div and torch.pow; min_max from a shifted x; the variance written out with n - 1 and where(std == 0, x - mean, z); ge/le."""

import torch


def bmi(heights_m: torch.Tensor, weights_kg: torch.Tensor) -> torch.Tensor:
    return torch.div(weights_kg, torch.pow(heights_m, 2))


def min_max(x: torch.Tensor) -> torch.Tensor:
    shifted = x - x.min()
    span = shifted.max()
    return torch.where(
        span > 0, shifted / span.clamp_min(torch.finfo(x.dtype).tiny), torch.zeros_like(x)
    )


def standardize(x: torch.Tensor):
    n = x.shape[0]
    mean = x.sum(dim=0) / n
    var = ((x - mean) ** 2).sum(dim=0) / (n - 1)
    std = var.sqrt()
    z = (x - mean) / std
    z = torch.where(std == 0, x - mean, z)
    return z, mean, std


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    return bmi.ge(18.5) & bmi.le(24.9)
