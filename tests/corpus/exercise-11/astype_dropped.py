import numpy as np
import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    features.astype(np.float32)
    labels.astype(np.int64)
    X = torch.from_numpy(features)
    y = torch.from_numpy(labels)
    return X, y
