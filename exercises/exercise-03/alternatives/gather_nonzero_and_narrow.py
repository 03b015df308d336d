"""Exercise 03 - a correct alternative: gather of the nonzero positions, index_select of torch.where, narrow on both dimensions."""

import torch


def positives(x):
    flat = x.reshape(-1)
    idx = torch.nonzero(flat > 0).squeeze(1)
    return torch.gather(flat, 0, idx)


def filter_boxes(boxes, scores, threshold):
    keep = torch.where(scores > threshold)[0]
    return torch.index_select(boxes, 0, keep)


def corner_copy(x, k):
    return torch.narrow(torch.narrow(x, 0, 0, k), 1, 0, k).detach().clone()
