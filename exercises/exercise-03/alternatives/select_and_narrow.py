import torch


def positives(x):
    return torch.masked_select(x, x.gt(0))


def filter_boxes(boxes, scores, threshold):
    keep = torch.nonzero(scores > threshold).flatten()
    return boxes.index_select(0, keep)


def corner_copy(x, k):
    return x.narrow(0, 0, k).narrow(1, 0, k).clone(memory_format=torch.contiguous_format)
