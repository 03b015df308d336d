import torch


def add_noise(x, std):
    return x + std * torch.randn_like(x)


def length_mask(lengths, max_len):
    return torch.arange(max_len, device=lengths.device) < lengths[:, None]


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for key in batch:  # assigns into the caller's dict
            batch[key] = to_device(batch[key], device)
        return batch
    if isinstance(batch, list):
        for i in range(len(batch)):  # and into the caller's lists
            batch[i] = to_device(batch[i], device)
        return batch
    if isinstance(batch, tuple):
        return tuple(to_device(item, device) for item in batch)
    return batch
