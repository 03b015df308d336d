import numpy as np
import torch


def mean_brightness(images):
    mean = images.mean(dim=(-2, -1), dtype=torch.float64)  # mean() accepts an output dtype
    return (mean / 255).to(torch.float32)


def prepare_batch(features, labels):
    X = torch.from_numpy(features.astype(np.float32))
    y = torch.from_numpy(labels.astype(np.int64))
    return X, y
