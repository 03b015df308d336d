"""Exercise 19 - Reproducibility.

Implement the two functions below (each one currently raises NotImplementedError), keeping their
names and arguments. Run `grade exercise-19` to check your work, `grade hint exercise-19` when
you are stuck.
"""

import random  # noqa: F401 - set_seed needs these

import numpy as np  # noqa: F401
import torch


def set_seed(seed: int) -> None:
    """Seed every random number generator an experiment uses: Python's `random`, NumPy's global
    generator and torch's (on the CPU and on every CUDA device)."""
    # TODO: each library keeps its own random state; seed all of them with `seed`.
    raise NotImplementedError


def split_indices(n: int, val_fraction: float, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """A shuffled train/validation split of range(n): returns (train_idx, val_idx), int64.

    The validation part holds round(n * val_fraction) indices (Python's round). The shuffle is
    drawn from a torch.Generator of its own, seeded with `seed`: torch's global random state
    neither affects the split nor is changed by it.
    """
    # TODO: create and seed a generator, and pass it to the function that shuffles.
    raise NotImplementedError
