"""Exercise 04."""

import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores, labels):
    # the score of each row's class
    return scores.max(dim=1).values
