"""import torch as T; Generator() then g.manual_seed; cuda seeding only when available."""

import random

import numpy as np
import torch as T


def set_seed(seed: int) -> None:
    """Seed every generator the tutorial names."""
    random.seed(seed)
    np.random.seed(seed)
    T.manual_seed(seed)
    if T.cuda.is_available():
        T.cuda.manual_seed_all(seed)


def split_indices(n: int, val_fraction: float, seed: int):
    g = T.Generator()
    g.manual_seed(seed)
    perm = T.randperm(n, generator=g)
    n_val = round(n * val_fraction)
    val, train = perm[:n_val], perm[n_val:]
    return train, val
