"""import torch as T; as_tensor(dtype=...); mean over dims [-2, -1] of x.to(float32) / 255.0."""

from __future__ import annotations

import numpy as np
import torch as T


def _to_unit(x: T.Tensor) -> T.Tensor:
    return x.to(T.float32) / 255.0


def mean_brightness(images: T.Tensor) -> T.Tensor:
    return _to_unit(images).mean(dim=[-2, -1])


def prepare_batch(features: np.ndarray, labels: np.ndarray) -> tuple[T.Tensor, T.Tensor]:
    return T.as_tensor(features, dtype=T.float32), T.as_tensor(labels, dtype=T.int64)
