import torch
from torch.utils._pytree import tree_map


def add_noise(x, std):
    noise = torch.normal(0.0, std, size=x.shape, dtype=x.dtype, device=x.device)
    return torch.add(x, noise)


def length_mask(lengths, max_len):
    positions = torch.arange(max_len, device=lengths.device).expand(len(lengths), max_len)
    return positions < lengths.view(-1, 1)


def to_device(batch, device):
    return tree_map(lambda leaf: leaf.to(device) if isinstance(leaf, torch.Tensor) else leaf, batch)
