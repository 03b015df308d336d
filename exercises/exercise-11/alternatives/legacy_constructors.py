"""torch.FloatTensor(features) and torch.LongTensor(labels), the legacy constructors."""

import torch


def mean_brightness(images: torch.Tensor) -> torch.Tensor:
    # mean() needs a floating dtype, and uint8 arithmetic would wrap around: convert first.
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    X = torch.FloatTensor(features)
    y = torch.LongTensor(labels)
    return X, y
