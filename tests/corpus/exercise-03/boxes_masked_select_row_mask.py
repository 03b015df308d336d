"""Exercise 03."""

import torch


def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    return torch.masked_select(boxes, (scores > threshold).unsqueeze(0))


def corner_copy(x, k):
    return x[:k, :k].clone()
