"""A match statement; type(batch)(...) for dicts, lists and tuples."""

import torch


def add_noise(x: torch.Tensor, std: float) -> torch.Tensor:
    # randn_like draws on x's device with x's dtype (torch.randn(x.shape) would be float32 on the CPU).
    return x + std * torch.randn_like(x)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    positions = torch.arange(max_len, device=lengths.device)
    return positions < lengths[:, None]


def to_device(batch, device):
    match batch:
        case torch.Tensor():
            return batch.to(device)
        case dict():
            return type(batch)((k, to_device(v, device)) for k, v in batch.items())
        case list() | tuple():
            return type(batch)(to_device(v, device) for v in batch)
        case _:
            return batch
