"""Exercise 04."""

import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    index = labels.float().unsqueeze(1)
    return out.scatter_(1, index, 1.0)


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
