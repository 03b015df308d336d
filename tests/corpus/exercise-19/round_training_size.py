import random
import numpy as np
import torch

def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed(seed)

def split_indices(n, val_fraction, seed):
    g = torch.Generator().manual_seed(seed)
    idx = torch.randperm(n, generator=g)
    n_train = round(n * (1 - val_fraction))
    return idx[:n_train], idx[n_train:]
