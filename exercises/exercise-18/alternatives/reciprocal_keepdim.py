"""reciprocal().square(); aminmax and a conditional expression; keepdim mean and std squeezed; chained comparison on the left."""

import torch


def bmi(heights_m, weights_kg):
    return weights_kg * heights_m.reciprocal().square()


def min_max(x):
    lo, hi = torch.aminmax(x)
    return (x - lo) / (hi - lo) if hi > lo else torch.zeros_like(x)


def standardize(x):
    mean = x.mean(0, keepdim=True)
    std = x.std(0, keepdim=True)
    z = (x - mean) / std.where(std != 0, torch.ones_like(std))
    return z, mean.squeeze(0), std.squeeze(0)


def healthy(bmi):
    return (18.5 <= bmi) & (bmi <= 24.9)
