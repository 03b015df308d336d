"""Exercise 19 - reference solution."""

import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator, and those of the CUDA devices too
    torch.cuda.manual_seed_all(seed)  # as the tutorial writes it; does nothing without a GPU


def split_indices(n, val_fraction, seed):
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(n, generator=g)
    k = round(n * val_fraction)
    return perm[:-k], perm[-k:]


