"""An unusual but correct solution."""

import torch


def flatten_transposed(x):
    return torch.cat([x.t().contiguous().view(-1)])


def to_sequence(images):
    return torch.flatten(images.movedim(1, -1), start_dim=1, end_dim=2)
