import torch


def one_hot(labels, num_classes):
    out = torch.zeros(len(labels), num_classes, device=labels.device)
    out.scatter_(1, labels.unsqueeze(0), 1.0)
    return out


def pick(scores, labels):
    return scores[torch.arange(len(labels), device=labels.device), labels]
