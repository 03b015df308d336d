import torch


def pairwise_distance(x):
    return (x[:, None, :] - x[None, :, :]).pow(2).sum(-1).sqrt()


def center_columns(x):
    return x - x.mean(dim=0, keepdim=True)


def iou_matrix(a, b):
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    union = area_a + area_b - inter
    return inter / union
