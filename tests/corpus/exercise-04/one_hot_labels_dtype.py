import torch


def one_hot(labels, num_classes):
    # same dtype and device as the labels
    out = torch.zeros(len(labels), num_classes, dtype=labels.dtype, device=labels.device)
    out[torch.arange(len(labels), device=labels.device), labels] = 1
    return out


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
