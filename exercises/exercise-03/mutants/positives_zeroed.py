import torch


def positives(x):
    # Zeroes the others instead of selecting: keeps the shape of x.
    return torch.where(x > 0, x, torch.zeros_like(x))


def filter_boxes(boxes, scores, threshold):
    return boxes[scores > threshold]


def corner_copy(x, k):
    return x[:k, :k].clone()
