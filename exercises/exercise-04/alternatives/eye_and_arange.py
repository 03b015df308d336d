import torch


def one_hot(labels, num_classes):
    # Row c of the identity matrix is the one-hot vector of class c.
    return torch.eye(num_classes, device=labels.device)[labels]


def pick(scores, labels):
    rows = torch.arange(labels.shape[0], device=scores.device)
    return scores[rows, labels]
