import torch

def add_noise(x, std):
    noise = torch.randn_like(x) * std
    return x + noise

def length_mask(lengths, max_len):
    pos = torch.arange(max_len)
    pos.to(lengths.device)
    return pos.unsqueeze(0) < lengths.unsqueeze(1)

def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, list):
        return [to_device(v, device) for v in batch]
    if isinstance(batch, tuple):
        return tuple(to_device(v, device) for v in batch)
    return batch
