import torch


def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    return boxes[scores > threshold]


def corner_copy(x, k):
    return x.clone().resize_(k, k)
