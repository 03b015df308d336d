"""numpy imported whole; torch.cuda.manual_seed too; rand keys from the generator, argsort and torch.split."""

import random

import numpy
import torch


def set_seed(seed):
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    numpy.random.seed(seed)
    random.seed(seed)


def split_indices(n, val_fraction, seed):
    gen = torch.Generator(device="cpu").manual_seed(seed)
    keys = torch.rand(n, generator=gen)
    order = keys.argsort()
    k = round(n * val_fraction)
    train_idx, val_idx = torch.split(order, [n - k, k])
    return train_idx, val_idx
