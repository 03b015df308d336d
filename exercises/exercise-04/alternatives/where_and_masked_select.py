import torch


def one_hot(labels, num_classes):
    classes = torch.arange(num_classes, device=labels.device)
    return torch.where(labels[:, None] == classes, 1.0, 0.0)


def pick(scores, labels):
    hit = labels[:, None] == torch.arange(scores.shape[1], device=labels.device)
    return scores.masked_select(hit)
