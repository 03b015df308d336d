"""The usual reproducibility recipe: PYTHONHASHSEED, and torch.backends.cudnn.deterministic / benchmark set."""

import os
import random

import numpy as np
import torch


def set_seed(seed):
    os.environ["PYTHONHASHSEED"] = str(seed)
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def split_indices(n, val_fraction, seed):
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(n, generator=g)
    k = round(n * val_fraction)
    return perm[k:], perm[:k]
