import torch
import torch.nn.functional as F


def one_hot(labels, num_classes):
    return F.one_hot(labels, num_classes=num_classes).to(torch.float32)


def pick(scores, labels):
    return torch.take_along_dim(scores, labels[:, None], dim=1)[:, 0]
