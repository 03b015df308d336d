import torch


def add_noise(x, std):
    noise = torch.empty_like(x).normal_(mean=0.0, std=std)
    return x + noise


def length_mask(lengths, max_len):
    return lengths.unsqueeze(1) > torch.arange(max_len, device=lengths.device)


def to_device(batch, device):
    if torch.is_tensor(batch):
        return batch.to(device=device, non_blocking=True)
    if isinstance(batch, dict):
        return type(batch)((k, to_device(v, device)) for k, v in batch.items())
    if isinstance(batch, (list, tuple)):
        return type(batch)(to_device(v, device) for v in batch)
    return batch
