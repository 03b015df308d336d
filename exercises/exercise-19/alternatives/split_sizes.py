import random

import numpy as np
import torch


def set_seed(seed):
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    np.random.seed(seed)
    random.seed(seed)


def split_indices(n, val_fraction, seed):
    g = torch.Generator(device="cpu").manual_seed(seed)
    n_val = round(n * val_fraction)
    train, val = torch.split(torch.randperm(n, generator=g), [n - n_val, n_val])
    return train, val
