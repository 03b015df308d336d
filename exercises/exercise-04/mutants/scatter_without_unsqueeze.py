import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    # The index must have as many dimensions as out: (N,) is not (N, 1).
    return out.scatter_(1, labels, 1.0)


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
