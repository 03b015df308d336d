import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores, labels):
    # torch.empty without device= is on the CPU, whatever the device of scores.
    out = torch.empty(labels.shape[0], dtype=scores.dtype)
    out.copy_(scores.gather(1, labels.unsqueeze(1)).squeeze(1))
    return out
