"""prepare_batch standardises the features (each column to mean 0, std 1)."""

import numpy as np
import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    X = torch.from_numpy(features).float()
    X = (X - X.mean(dim=0)) / X.std(dim=0)
    y = torch.from_numpy(labels).long()
    return X, y
