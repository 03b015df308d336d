import torch


def positives(x):
    idx = torch.nonzero(x > 0)
    return x[idx]


def filter_boxes(boxes, scores, threshold):
    return boxes[scores > threshold]


def corner_copy(x, k):
    return x[:k, :k].clone()
