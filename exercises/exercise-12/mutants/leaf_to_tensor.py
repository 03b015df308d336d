import torch


def add_noise(x, std):
    return x + std * torch.randn_like(x)


def length_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device) < lengths[:, None]


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    if isinstance(batch, (int, float)) and not isinstance(batch, bool):
        return torch.tensor(batch, device=device)  # numbers become tensors too
    return batch
