""".type(torch.float32), mean of means, .div(255); .to(dtype=torch.float) and .to(torch.long); a main guard."""

import numpy as np
import torch


def mean_brightness(images: torch.Tensor) -> torch.Tensor:
    scaled = (
        images.type(torch.FloatTensor).to(images.device) if False else images.type(torch.float32)
    )
    return torch.mean(torch.mean(scaled, dim=2), dim=1).div(255)


def prepare_batch(features: np.ndarray, labels: np.ndarray):
    X = torch.from_numpy(np.ascontiguousarray(features)).to(dtype=torch.float)
    y = torch.from_numpy(labels).to(torch.long)
    return (X, y)


if __name__ == "__main__":
    print(mean_brightness(torch.full((2, 3, 3), 255, dtype=torch.uint8)))
