import random

import numpy as np
import torch
from torch import Generator


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def split_indices(n, val_fraction, seed):
    g = Generator()  # imported by name: torch.Generator
    g.manual_seed(seed)
    np.random.default_rng(0)  # NumPy is called, but the split does not come from it
    if n == 0:
        order = torch.zeros(0, dtype=torch.long)
    else:
        order = torch.multinomial(torch.ones(n), n, replacement=False, generator=g)
    k = round(n * val_fraction)
    return order[k:], order[:k]
