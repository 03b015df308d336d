"""Exercise 11 - The dtype bugs.

Both functions below prepare data for a model, and both get a dtype wrong: one crashes, the
other hands the model tensors it cannot use. Find the bugs and fix them, keeping the functions'
names, arguments and return values. Run `grade exercise-11` to check your work.
"""

import numpy as np
import torch


def mean_brightness(images: torch.Tensor) -> torch.Tensor:
    """Each image's mean pixel value scaled to [0, 1]: a float32 tensor of shape (B,).

    `images` is a uint8 tensor of shape (B, H, W) holding pixel values 0..255.
    """
    return images.mean(dim=(1, 2)) / 255


def prepare_batch(features: np.ndarray, labels: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """Turn NumPy data into tensors ready for nn.Linear and F.cross_entropy.

    `features` is a float64 array of shape (n, d), `labels` an int32 array of shape (n,) holding
    class indices. Returns float32 features of shape (n, d) and int64 labels of shape (n,).
    """
    X = torch.from_numpy(features)
    y = torch.from_numpy(labels)
    return X, y
