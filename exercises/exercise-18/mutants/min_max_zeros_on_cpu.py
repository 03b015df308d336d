"""min_max returns torch.zeros(len(x)) for a constant x (on the CPU, whatever x's device)."""

import torch


def bmi(heights_m: torch.Tensor, weights_kg: torch.Tensor) -> torch.Tensor:
    return weights_kg / heights_m**2


def min_max(x):
    span = x.max() - x.min()
    if span == 0:
        return torch.zeros(len(x))
    return (x - x.min()) / span


def standardize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mean = x.mean(dim=0)  # one value per column: reduce over the rows
    std = x.std(dim=0)  # torch.std's default: unbiased (divides by n - 1)
    z = (x - mean) / torch.where(std > 0, std, torch.ones_like(std))
    return z, mean, std


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    # & combines element by element; Python's `18.5 <= bmi <= 24.9` would call bool() on a tensor.
    return (bmi >= 18.5) & (bmi <= 24.9)
