"""Exercise 04."""

import torch


def one_hot(labels, num_classes):
    return torch.eye(num_classes)[labels]


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
