"""An if on x.max() == x.min() returning torch.zeros_like(x) (judged from the source on meta)."""

import torch


def bmi(heights_m, weights_kg):
    return weights_kg / (heights_m * heights_m)


def min_max(x):
    if x.max() == x.min():
        return torch.zeros_like(x)
    return (x - x.min()) / (x.max() - x.min())


def standardize(x):
    mean = x.mean(0)
    std = x.std(0)
    return (x - mean) / torch.where(std == 0, torch.ones_like(std), std), mean, std


def healthy(bmi):
    return (18.5 <= bmi) & (bmi <= 24.9)
