import torch


def pairwise_distance(x):
    # (n, 1, d) - (1, n, d) -> (n, n, d)
    diff = x.unsqueeze(1) - x.unsqueeze(0)
    return torch.sqrt((diff * diff).sum(dim=2))


def center_columns(x):
    col_mean = x.mean(dim=0, keepdim=True)
    return x - col_mean


def iou_matrix(a, b):
    # +1 as in the Fast R-CNN code: a box from x1 to x2 covers x2 - x1 + 1 pixels
    x1 = torch.max(a[:, None, 0], b[None, :, 0])
    y1 = torch.max(a[:, None, 1], b[None, :, 1])
    x2 = torch.min(a[:, None, 2], b[None, :, 2])
    y2 = torch.min(a[:, None, 3], b[None, :, 3])
    w = (x2 - x1 + 1).clamp(min=0)
    h = (y2 - y1 + 1).clamp(min=0)
    inter = w * h
    area_a = (a[:, 2] - a[:, 0] + 1) * (a[:, 3] - a[:, 1] + 1)
    area_b = (b[:, 2] - b[:, 0] + 1) * (b[:, 3] - b[:, 1] + 1)
    union = area_a[:, None] + area_b[None, :] - inter
    return inter / union
