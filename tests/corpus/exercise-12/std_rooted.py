import torch

def add_noise(x, std):
    return x + std ** 0.5 * torch.randn_like(x)

def length_mask(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device)
    return positions < lengths[:, None]

def to_device(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, dict):
        return {k: to_device(v, device) for k, v in batch.items()}
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch
