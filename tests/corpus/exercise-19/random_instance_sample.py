import random
import numpy as np
import torch
from numpy.random import default_rng
def set_seed(seed):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
def split_indices(n, val_fraction, seed):
    rng = random.Random(seed)
    idx = rng.sample(range(n), n)
    k = round(n * val_fraction)
    return torch.tensor(idx[k:], dtype=torch.long), torch.tensor(idx[:k], dtype=torch.long)
