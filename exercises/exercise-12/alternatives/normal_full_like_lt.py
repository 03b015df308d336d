"""torch.normal(mean=x, std=full_like); expand + lt; a dict built key by key; map with lambdas."""

import torch


def add_noise(x, std):
    return torch.normal(mean=x, std=torch.full_like(x, std))


def length_mask(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device).expand(lengths.shape[0], max_len)
    return positions.lt(lengths.view(-1, 1))


def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    elif type(batch) is dict:
        out = {}
        for key in batch:
            out[key] = to_device(batch[key], device)
        return out
    elif isinstance(batch, list):
        return list(map(lambda b: to_device(b, device), batch))
    elif isinstance(batch, tuple):
        return tuple(map(lambda b: to_device(b, device), batch))
    else:
        return batch
