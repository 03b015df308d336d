"""An unusual but correct solution."""

import copy


def positives(x):
    flat = x.flatten()
    return flat[flat.gt(0).nonzero(as_tuple=True)]


def filter_boxes(boxes, scores, threshold):
    return boxes[scores > threshold]


def corner_copy(x, k):
    return copy.deepcopy(x[:k, :k])
