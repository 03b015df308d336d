"""Exercise 19 - reference solution."""

import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator, and those of the CUDA devices too
    torch.cuda.manual_seed_all(seed)
    return seed


def split_indices(n: int, val_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    # A private generator: the global state (model initialisation, dropout, ...) is untouched.
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(n, generator=generator)
    n_val = round(n * val_fraction)  # Python rounds halves to even: round(2.5) == 2
    return order[n_val:], order[:n_val]
