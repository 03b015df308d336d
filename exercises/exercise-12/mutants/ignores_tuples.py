import torch


def add_noise(x, std):
    return x + std * torch.randn_like(x)


def length_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device) < lengths[:, None]


def to_device(batch, device):
    # The starter's to_device: a tuple is returned as it is, its tensors never moved.
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {key: to_device(value, device) for key, value in batch.items()}
    if isinstance(batch, list):
        return [to_device(item, device) for item in batch]
    return batch
