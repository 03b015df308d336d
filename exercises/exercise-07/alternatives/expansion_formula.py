import torch


def pairwise_distance(x):
    # |x|^2 + |y|^2 - 2 x.y, clamped before the square root, with the diagonal set to exactly 0.
    sq = (x * x).sum(dim=1)
    d2 = (sq.unsqueeze(1) + sq.unsqueeze(0) - 2.0 * (x @ x.mT)).clamp_min(0)
    same = torch.eye(x.shape[0], dtype=torch.bool, device=x.device)
    return torch.where(same, torch.zeros_like(d2), d2.sqrt())


def center_columns(x):
    # Column means in float64, then back to x's dtype.
    wide = x.to(torch.float64)
    return (wide - wide.sum(dim=0) / x.shape[0]).to(x.dtype)


def iou_matrix(a, b):
    lo = torch.max(a.unsqueeze(1)[..., :2], b.unsqueeze(0)[..., :2])
    hi = torch.min(a.unsqueeze(1)[..., 2:], b.unsqueeze(0)[..., 2:])
    inter = torch.clamp(hi - lo, min=0).prod(dim=-1)
    area_a = (a[:, 2:] - a[:, :2]).prod(dim=1)
    area_b = (b[:, 2:] - b[:, :2]).prod(dim=1)
    return inter / (area_a.unsqueeze(1) + area_b.unsqueeze(0) - inter)
