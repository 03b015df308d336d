"""Exercise 04."""

import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, dtype=torch.long, device=labels.device)
    out[torch.arange(labels.shape[0], device=labels.device), labels] = 1
    return out


def pick(scores, labels):
    idx = labels.view(-1, 1).to(scores.dtype)
    return scores.gather(1, idx).view(-1)
