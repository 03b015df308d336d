import torch


def pairwise_distance(x):
    d = x[:, None] - x[None]
    return d.square().sum(-1).sqrt()


def center_columns(x):
    return torch.sub(x, torch.mean(x, 0))


def iou_matrix(a, b):
    ax1, ay1, ax2, ay2 = a.unbind(1)
    bx1, by1, bx2, by2 = b.unbind(1)
    iw = (torch.minimum(ax2[:, None], bx2) - torch.maximum(ax1[:, None], bx1)).clamp(min=0)
    ih = (torch.minimum(ay2[:, None], by2) - torch.maximum(ay1[:, None], by1)).clamp(min=0)
    inter = iw * ih
    area_a = (ax2 - ax1) * (ay2 - ay1)
    area_b = (bx2 - bx1) * (by2 - by1)
    return inter / (area_a[:, None] + area_b - inter)
