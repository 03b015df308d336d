import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    out[list(range(labels.shape[0])), labels.tolist()] = 1.0
    return out


def pick(scores, labels):
    return scores[list(range(scores.shape[0])), labels.tolist()]
