import random

import numpy as np
import torch


def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)


def split_indices(n, val_fraction, seed):
    # Fisher-Yates with a small linear congruential generator seeded with seed
    state = seed
    order = list(range(n))
    for i in range(n - 1, 0, -1):
        state = (1103515245 * state + 12345) % 2**31
        j = state % (i + 1)
        order[i], order[j] = order[j], order[i]
    perm = torch.tensor(order, dtype=torch.int64)
    k = round(n * val_fraction)
    return perm[k:], perm[:k]
