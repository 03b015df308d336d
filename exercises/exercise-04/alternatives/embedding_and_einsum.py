"""An unusual but correct solution."""

import torch
import torch.nn.functional as F


def one_hot(labels, num_classes):
    return F.embedding(labels, torch.eye(num_classes, device=labels.device))


def pick(scores, labels):
    mask = F.one_hot(labels, scores.shape[1]).to(scores.dtype)
    return torch.einsum("nc,nc->n", scores, mask)
