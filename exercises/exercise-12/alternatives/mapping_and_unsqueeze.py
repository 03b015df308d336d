"""import torch as T; randn(shape, device=, dtype=); unsqueeze comparison; Mapping and one branch for lists and tuples."""

from __future__ import annotations

from collections.abc import Mapping

import torch as T


def add_noise(x: T.Tensor, std: float) -> T.Tensor:
    noise = T.randn(x.shape, device=x.device, dtype=x.dtype)
    return x + noise * std


def length_mask(lengths: T.Tensor, max_len: int) -> T.Tensor:
    return T.arange(max_len, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(1)


def to_device(batch, device):
    if T.is_tensor(batch):
        return batch.to(device=device)
    if isinstance(batch, Mapping):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        moved = [to_device(v, device) for v in batch]
        return moved if isinstance(batch, list) else tuple(moved)
    return batch
