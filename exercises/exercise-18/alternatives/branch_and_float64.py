import torch


def bmi(heights_m, weights_kg):
    return weights_kg / (heights_m * heights_m)


def min_max(x):
    low, high = x.min(), x.max()
    if high == low:  # a Python branch on the value: fine on CPU and GPU
        return torch.zeros_like(x)
    return (x - low) / (high - low)


def standardize(x):
    x64 = x.double()
    mean = x64.mean(dim=0)
    std = x64.var(dim=0, correction=1).sqrt()
    z = torch.nan_to_num((x64 - mean) / std, nan=0.0)  # 0 / 0 only in constant columns
    return z.to(x.dtype), mean.to(x.dtype), std.to(x.dtype)


def healthy(bmi):
    return ~((bmi < 18.5) | (bmi > 24.9))
