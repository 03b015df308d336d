import torch


def pairwise_distance(x):
    diff = x.unsqueeze(1) - x.unsqueeze(0)
    return torch.linalg.vector_norm(diff, dim=2)


def center_columns(x):
    n = x.shape[0]
    ones = torch.ones(n, n, dtype=x.dtype, device=x.device) / n
    return x - ones @ x


def iou_matrix(a, b):
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    w = (rb[..., 0] - lt[..., 0]).clamp_min(0)
    h = (rb[..., 1] - lt[..., 1]).clamp_min(0)
    inter = w * h
    area_a = (a[:, 2:] - a[:, :2]).prod(dim=1)
    area_b = (b[:, 2:] - b[:, :2]).prod(dim=1)
    union = area_a.unsqueeze(1) + area_b.unsqueeze(0) - inter
    return inter / union
