"""Positions counted from 1, arange(1, max_len + 1) <= lengths."""

import torch


def add_noise(x: torch.Tensor, std: float) -> torch.Tensor:
    # randn_like draws on x's device with x's dtype (torch.randn(x.shape) would be float32 on the CPU).
    return x + std * torch.randn_like(x)


def length_mask(lengths, max_len):
    return torch.arange(1, max_len + 1, device=lengths.device).unsqueeze(0) <= lengths.unsqueeze(1)


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
