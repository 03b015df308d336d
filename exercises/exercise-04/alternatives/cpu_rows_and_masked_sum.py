import torch


def one_hot(labels, num_classes):
    classes = torch.arange(num_classes, device=labels.device)
    return (labels.unsqueeze(1) == classes).to(torch.float32)


def pick(scores, labels):
    # A CPU index tensor may index a tensor on any device (CUDA included).
    rows = torch.arange(scores.shape[0])
    return scores[rows, labels]
