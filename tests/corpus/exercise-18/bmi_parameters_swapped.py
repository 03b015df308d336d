import torch


def bmi(weights_kg: torch.Tensor, heights_m: torch.Tensor) -> torch.Tensor:
    return weights_kg / heights_m**2


def min_max(x: torch.Tensor) -> torch.Tensor:
    low, high = x.min(), x.max()
    span = high - low
    return (x - low) / torch.where(span > 0, span, torch.ones_like(span))


def standardize(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    mean = x.mean(dim=0)
    std = x.std(dim=0)
    z = (x - mean) / torch.where(std > 0, std, torch.ones_like(std))
    return z, mean, std


def healthy(bmi: torch.Tensor) -> torch.Tensor:
    return (bmi >= 18.5) & (bmi <= 24.9)
