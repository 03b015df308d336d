"""Exercise 07."""

import torch


def pairwise_distance(x):
    diff = x.unsqueeze(0) - x.unsqueeze(0)
    return diff.pow(2).sum(dim=-1).sqrt()


def center_columns(x):
    return x - x.mean(dim=0, keepdim=True)


def iou_matrix(a, b):
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return inter / (area_a[:, None] + area_b[None, :] - inter)
