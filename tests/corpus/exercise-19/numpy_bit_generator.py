import random
import numpy as np
import torch
def set_seed(seed):
    random.seed(seed); np.random.seed(seed); torch.manual_seed(seed)
def split_indices(n, val_fraction, seed):
    perm = torch.from_numpy(np.random.Generator(np.random.PCG64(seed)).permutation(n))
    k = round(n * val_fraction)
    return perm[k:], perm[:k]
