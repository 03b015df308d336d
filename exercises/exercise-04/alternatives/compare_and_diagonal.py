import torch


def one_hot(labels, num_classes):
    classes = torch.arange(num_classes, device=labels.device)
    return (labels.unsqueeze(1) == classes).float()


def pick(scores, labels):
    # scores[:, labels][i, j] = scores[i, labels[j]]: the answer is its diagonal.
    return scores[:, labels].diagonal()
