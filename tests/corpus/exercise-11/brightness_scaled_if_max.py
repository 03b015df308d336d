"""mean_brightness divides by 255 only when images.max() > 1: max() of an empty batch raises."""

import numpy as np
import torch

def mean_brightness(images):
    x = images.float()
    x = x / 255 if images.max() > 1 else x
    return x.mean(dim=(1, 2))

def prepare_batch(features, labels):
    return torch.from_numpy(features).float(), torch.from_numpy(labels).long()
