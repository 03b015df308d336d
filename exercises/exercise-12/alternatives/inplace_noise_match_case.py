"""randn_like(x).mul_(std).add_(x); arange().to(device) and a difference < 0; match/case on the type."""

import torch
from torch import Tensor


def add_noise(x: Tensor, std: float) -> Tensor:
    return torch.randn_like(x).mul_(std).add_(x)


def length_mask(lengths: Tensor, max_len: int) -> Tensor:
    idx = torch.arange(max_len).to(lengths.device)
    return (idx[None, :] - lengths[:, None]) < 0


def to_device(batch, device):
    match batch:
        case Tensor():
            return batch.to(device, non_blocking=False)
        case dict():
            return {k: to_device(v, device) for k, v in batch.items()}
        case list():
            return [to_device(v, device) for v in batch]
        case tuple():
            return tuple(to_device(v, device) for v in batch)
        case _:
            return batch
