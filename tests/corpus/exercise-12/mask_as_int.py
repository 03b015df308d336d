"""length_mask: the right comparison, turned into int32 numbers."""


import torch


def add_noise(x: torch.Tensor, std: float) -> torch.Tensor:
    return x + std * torch.randn_like(x)


def length_mask(lengths: torch.Tensor, max_len: int) -> torch.Tensor:
    positions = torch.arange(max_len, device=lengths.device)
    return (positions < lengths[:, None]).int()


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    return batch
