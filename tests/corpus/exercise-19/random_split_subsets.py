"""split_indices returns the two Subsets of torch.utils.data.random_split, not index tensors."""

import random
import numpy as np
import torch
from torch.utils.data import random_split

def set_seed(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)

def split_indices(n, val_fraction, seed):
    n_val = round(n * val_fraction)
    train, val = random_split(range(n), [n - n_val, n_val], generator=torch.Generator().manual_seed(seed))
    return train, val
