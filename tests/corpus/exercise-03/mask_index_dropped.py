import torch


def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    keep = scores > threshold
    boxes[keep]
    return boxes


def corner_copy(x, k):
    return x[:k, :k].clone()
