import torch
from torch.utils.data import default_collate


def stack_images(images):
    # What a DataLoader does with a list of samples.
    return default_collate(images)


def concat_features(a, b):
    return torch.cat((a, b), dim=-1)


def split_heads(x, heads):
    B, T, F = x.shape
    return x.contiguous().view(B, T, heads, F // heads).permute(0, 2, 1, 3).contiguous()
