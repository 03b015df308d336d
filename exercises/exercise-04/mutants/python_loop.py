import torch


def one_hot(labels, num_classes):
    out = torch.zeros(labels.shape[0], num_classes, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores, labels):
    # One small tensor operation per row.
    out = scores.new_empty(labels.shape[0])
    for i in range(labels.shape[0]):
        out[i] = scores[i, labels[i]]
    return out
