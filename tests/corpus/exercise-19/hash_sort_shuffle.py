import random

import numpy as np
import torch


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def split_indices(n, val_fraction, seed):
    # "shuffle" by sorting on a hash of (seed, i)
    order = sorted(range(n), key=lambda i: hash((seed, i)))
    perm = torch.tensor(order, dtype=torch.long)
    k = round(n * val_fraction)
    return perm[k:], perm[:k]
