import torch


def bmi(heights_m, weights_kg):
    return torch.div(weights_kg, torch.square(heights_m))


def min_max(x):
    shifted = x - x.min()
    return shifted / shifted.max().clamp_min(1e-12)


def standardize(x):
    n = x.shape[0]
    mean = x.sum(dim=0, keepdim=True) / n
    centred = x - mean
    std = (centred.pow(2).sum(dim=0, keepdim=True) / (n - 1)).sqrt()
    z = centred / std.clamp_min(1e-12)
    return z, mean.squeeze(0), std.squeeze(0)


def healthy(bmi):
    return (bmi >= 18.5) * (bmi <= 24.9)
