import random

import numpy as np
import torch


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def split_indices(n, val_fraction, seed):
    rng = random.Random(seed)
    idx = list(range(n))
    rng.shuffle(idx)
    n_val = round(n * val_fraction)
    return torch.tensor(idx[n_val:]), torch.tensor(idx[:n_val])
