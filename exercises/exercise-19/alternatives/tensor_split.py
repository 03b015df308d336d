"""The generator made inline; perm.tensor_split([k])."""

import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)  # the CPU generator, and those of the CUDA devices too
    torch.cuda.manual_seed_all(seed)  # as the tutorial writes it; does nothing without a GPU


def split_indices(n, val_fraction, seed):
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    k = round(n * val_fraction)
    val, train = perm.tensor_split([k])
    return train, val
