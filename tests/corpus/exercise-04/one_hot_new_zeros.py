import torch


def one_hot(labels, num_classes):
    out = labels.new_zeros(labels.shape[0], num_classes)
    out.scatter_(1, labels.unsqueeze(1), 1)
    return out


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
