import numpy as np
import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    X = torch.from_numpy(features).float()
    # cross_entropy wants 1-D labels
    y = torch.from_numpy(labels).long().squeeze()
    return X, y
