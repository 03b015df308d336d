import random
import numpy as np
import torch
def set_seed(seed):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
def split_indices(n, val_fraction, seed):
    idx = list(range(n))
    random.seed(seed)
    random.shuffle(idx)
    k = round(n * val_fraction)
    return torch.tensor(idx[k:], dtype=torch.long), torch.tensor(idx[:k], dtype=torch.long)
