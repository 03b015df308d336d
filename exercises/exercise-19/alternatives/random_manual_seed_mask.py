"""torch.random.manual_seed; randperm(dtype=int64); int(round(...)); a boolean mask selecting each side."""

import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.random.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def split_indices(n: int, val_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator()
    generator.manual_seed(seed)
    shuffled = torch.randperm(n, generator=generator, dtype=torch.int64)
    n_val = int(round(n * val_fraction))  # noqa: RUF046 (a learner habit)
    is_val = torch.zeros(n, dtype=torch.bool)
    is_val[:n_val] = True
    return shuffled[~is_val], shuffled[is_val]
