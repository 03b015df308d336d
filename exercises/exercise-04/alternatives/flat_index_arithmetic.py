"""An unusual but correct solution."""

import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores, labels):
    n, c = scores.shape
    flat = torch.arange(n, device=scores.device) * c + labels
    return scores.reshape(-1)[flat]
