import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator, and those of the CUDA devices too
    torch.cuda.manual_seed_all(seed)  # as the tutorial writes it; does nothing without a GPU


def split_indices(n, val_fraction, seed):
    order = list(range(n))
    random.seed(seed)  # Python's global generator
    random.shuffle(order)
    n_val = round(n * val_fraction)
    return torch.tensor(order[n_val:], dtype=torch.long), torch.tensor(
        order[:n_val], dtype=torch.long
    )
