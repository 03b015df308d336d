"""Exercise 03."""

import torch


def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    return boxes[scores > threshold].float()


def corner_copy(x, k):
    return x[:k, :k]
