import numpy as np
import torch


def mean_brightness(images: torch.Tensor) -> torch.Tensor:
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features: np.ndarray, labels: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    X = torch.from_numpy(features).float()
    y = torch.nn.functional.one_hot(torch.from_numpy(labels).long())
    return X, y
