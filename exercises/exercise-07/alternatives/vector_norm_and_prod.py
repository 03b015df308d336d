import torch


def pairwise_distance(x):
    return torch.linalg.vector_norm(x.unsqueeze(1) - x.unsqueeze(0), dim=-1)


def center_columns(x):
    return x - x.sum(dim=0) / x.shape[0]


def iou_matrix(a, b):
    top_left = torch.max(a[:, None, :2], b[:, :2])
    bottom_right = torch.min(a[:, None, 2:], b[:, 2:])
    inter = (bottom_right - top_left).clamp(min=0).prod(dim=-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(dim=1)
    area_b = (b[:, 2:] - b[:, :2]).prod(dim=1)
    return inter / (area_a.unsqueeze(1) + area_b.unsqueeze(0) - inter)
