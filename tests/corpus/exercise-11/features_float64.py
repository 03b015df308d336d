import numpy as np
import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    X = torch.tensor(features)
    y = torch.tensor(labels, dtype=torch.long)
    return X, y
