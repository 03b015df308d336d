"""Exercise 04."""

import numpy as np
import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores, labels):
    s = scores.detach().numpy()
    return s[np.arange(len(s)), labels.numpy()]
