"""bmi rescales heights it takes for centimetres, checked with heights_m.max(): raises when empty."""

import torch


def bmi(heights_m: torch.Tensor, weights_kg: torch.Tensor) -> torch.Tensor:
    if heights_m.max() > 3:  # heights given in centimetres
        heights_m = heights_m / 100
    return weights_kg / heights_m**2


def min_max(x: torch.Tensor) -> torch.Tensor:
    low, high = x.min(), x.max()
    span = high - low
    # A constant x has span 0: divide by 1 instead, and x - low is already all zeros.
    return (x - low) / torch.where(span > 0, span, torch.ones_like(span))


def standardize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mean = x.mean(dim=0)  # one value per column: reduce over the rows
    std = x.std(dim=0)  # torch.std's default: unbiased (divides by n - 1)
    z = (x - mean) / torch.where(std > 0, std, torch.ones_like(std))
    return z, mean, std


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    # & combines element by element; Python's `18.5 <= bmi <= 24.9` would call bool() on a tensor.
    return (bmi >= 18.5) & (bmi <= 24.9)
