"""An unusual but correct solution."""

import torch


def stack_images(images):
    return torch.nn.utils.rnn.pad_sequence(images, batch_first=True)


def concat_features(a, b):
    return torch.cat([a, b], dim=1)


def split_heads(x, heads):
    return torch.stack(x.tensor_split(heads, dim=-1), dim=1)
