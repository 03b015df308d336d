"""import torch as T; an if on (hi - lo).item(); std(unbiased=True); masked_fill; logical_and."""

import torch as T


def bmi(heights_m, weights_kg):
    return weights_kg / (heights_m * heights_m)


def min_max(x):
    lo = T.min(x)
    hi = T.max(x)
    if (hi - lo).item() == 0:
        return T.zeros_like(x)
    return (x - lo) / (hi - lo)


def standardize(x):
    mean = T.mean(x, dim=0)
    std = T.std(x, dim=0, unbiased=True)
    safe = std.masked_fill(std == 0, 1.0)
    return (x - mean) / safe, mean, std


def healthy(bmi):
    return T.logical_and(bmi >= 18.5, bmi <= 24.9)
