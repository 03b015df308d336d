"""Exercise 04."""

import torch


def one_hot(labels, num_classes):
    classes = torch.arange(num_classes, device=labels.device)
    return (labels == classes[:, None]).float()


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
