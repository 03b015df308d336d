import torch


def bmi(heights_m: torch.Tensor, weights_kg: torch.Tensor) -> torch.Tensor:
    return weights_kg / heights_m**2


def min_max(x):
    return (x - x.min()) / (x.max() - x.min())  # 0 / 0 for a constant x


def standardize(x):
    mean, std = x.mean(dim=0), x.std(dim=0)
    return (x - mean) / std, mean, std  # 0 / 0 for a constant column


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    # & combines element by element; Python's `18.5 <= bmi <= 24.9` would call bool() on a tensor.
    return (bmi >= 18.5) & (bmi <= 24.9)
