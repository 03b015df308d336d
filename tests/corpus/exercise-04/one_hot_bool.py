import torch


def one_hot(labels, num_classes):
    return labels.unsqueeze(1) == torch.arange(num_classes, device=labels.device)


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
