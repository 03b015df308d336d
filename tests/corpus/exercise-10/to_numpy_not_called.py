import numpy as np
import torch


def to_numpy(t: torch.Tensor) -> np.ndarray:
    return t.detach().cpu().numpy


def from_numpy_safe(a: np.ndarray) -> torch.Tensor:
    return torch.from_numpy(np.array(a, dtype=np.float32))
