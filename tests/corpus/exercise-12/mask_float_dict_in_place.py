import torch


def add_noise(x, std):
    return x + std * torch.randn_like(x)


def length_mask(lengths, max_len):
    return (torch.arange(max_len, device=lengths.device) < lengths[:, None]).float()


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        for k, v in batch.items():
            batch[k] = to_device(v, device)
        return batch
    if isinstance(batch, list):
        return [to_device(v, device) for v in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(v, device) for v in batch)
    return batch
