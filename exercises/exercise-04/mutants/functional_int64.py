import torch.nn.functional as F


def one_hot(labels, num_classes):
    # F.one_hot returns int64.
    return F.one_hot(labels, num_classes)


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
