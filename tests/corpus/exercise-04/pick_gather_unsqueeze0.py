import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(0)).squeeze(0)
