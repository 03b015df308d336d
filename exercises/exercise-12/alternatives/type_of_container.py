"""randn(*shape, dtype=, device=); repeat; type(batch)(...) rebuilding lists, tuples and dicts."""

import torch


def add_noise(x, std):
    return x + torch.randn(*x.shape, dtype=x.dtype, device=x.device) * std


def length_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device).repeat(len(lengths), 1) < lengths.reshape(
        -1, 1
    )


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(b, device) for b in batch)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device)) for k, v in batch.items())
    return batch
