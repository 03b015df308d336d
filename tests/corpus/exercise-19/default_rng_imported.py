import random
import numpy as np
import torch
from numpy.random import default_rng
def set_seed(seed):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
def split_indices(n, val_fraction, seed):
    perm = default_rng(seed).permutation(n)
    k = round(n * val_fraction)
    return torch.as_tensor(perm[k:]), torch.as_tensor(perm[:k])
