import random

import numpy as np
import torch


def set_seed(seed: int) -> None:
    np.random.seed(seed)
    torch.manual_seed(seed)
    random.seed(seed)


def split_indices(n, val_fraction, seed):
    generator = torch.Generator()
    generator.manual_seed(seed)
    keys = torch.rand(n, generator=generator)
    order = torch.argsort(keys)  # a uniformly random permutation
    n_val = round(val_fraction * n)
    val = order[n - n_val :]
    train = order[: n - n_val]
    return train.sort().values, val.sort().values  # sorted parts are still a random split
