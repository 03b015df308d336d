import torch


def add_noise(x, std):
    return x + std * torch.randn(x.shape, device=x.device, dtype=x.dtype)


def length_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device).unsqueeze(0) < lengths.unsqueeze(1)


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    if isinstance(batch, tuple):
        return (to_device(item, device) for item in batch)
    return batch
