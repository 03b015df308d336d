import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator, and those of the CUDA devices too
    torch.cuda.manual_seed_all(seed)  # as the tutorial writes it; does nothing without a GPU


def split_indices(n, val_fraction, seed):
    state = np.random.get_state()  # NumPy's global generator, put back as it was
    np.random.seed(seed)
    order = torch.from_numpy(np.random.permutation(n))
    np.random.set_state(state)
    n_val = round(n * val_fraction)
    return order[n_val:], order[:n_val]
