import random as pyrandom

import numpy
import torch


def set_seed(seed):
    pyrandom.seed(seed)
    numpy.random.seed(seed)
    torch.random.manual_seed(seed)
    if torch.cuda.is_available():
        torch.cuda.manual_seed_all(seed)


def split_indices(n, val_fraction, seed):
    # fork_rng saves the global state and restores it on exit, so seeding inside is harmless.
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        order = torch.randperm(n)
    k = round(n * val_fraction)
    return order[k:], order[:k]
