"""torch.std_mean unpacked in its order (std, mean); masked_fill for std 0."""

import torch


def bmi(heights_m: torch.Tensor, weights_kg: torch.Tensor) -> torch.Tensor:
    return weights_kg / heights_m**2


def min_max(x: torch.Tensor) -> torch.Tensor:
    low, high = x.min(), x.max()
    span = high - low
    # A constant x has span 0: divide by 1 instead, and x - low is already all zeros.
    return (x - low) / torch.where(span > 0, span, torch.ones_like(span))


def standardize(x):
    std, mean = torch.std_mean(x, dim=0)
    safe = std.masked_fill(std == 0, 1.0)
    return (x - mean) / safe, mean, std


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    # & combines element by element; Python's `18.5 <= bmi <= 24.9` would call bool() on a tensor.
    return (bmi >= 18.5) & (bmi <= 24.9)
