import random

import numpy as np
import torch


def set_seed(seed=42):
    random.seed(42)  # the tutorial's default, whatever the argument
    np.random.seed(42)
    torch.manual_seed(42)


def split_indices(n: int, val_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    # A private generator: the global state (model initialisation, dropout, ...) is untouched.
    generator = torch.Generator().manual_seed(seed)
    order = torch.randperm(n, generator=generator)
    n_val = round(n * val_fraction)  # Python rounds halves to even: round(2.5) == 2
    return order[n_val:], order[:n_val]
