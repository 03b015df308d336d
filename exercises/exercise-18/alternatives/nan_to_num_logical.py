"""nan_to_num of 0/0 for a constant x; logical_and of ge and le; heights_m.pow(-2)."""

import torch


def bmi(heights_m, weights_kg):
    return weights_kg * heights_m.pow(-2)


def min_max(x):
    return torch.nan_to_num((x - x.min()) / (x.max() - x.min()), nan=0.0)


def standardize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mean = x.mean(dim=0)  # one value per column: reduce over the rows
    std = x.std(dim=0)  # torch.std's default: unbiased (divides by n - 1)
    z = (x - mean) / torch.where(std > 0, std, torch.ones_like(std))
    return z, mean, std


def healthy(bmi):
    return torch.logical_and(bmi.ge(18.5), bmi.le(24.9))
