import torch


def pairwise_distance(x):
    # cdist computes each difference directly when told not to use the matrix product.
    return torch.cdist(x, x, p=2.0, compute_mode="donot_use_mm_for_euclid_dist")


def center_columns(x):
    # (n, d) - (d,) broadcasts too: the column means line up with the last dim.
    return x - x.mean(0)


def iou_matrix(a, b):
    ax1, ay1, ax2, ay2 = (c.unsqueeze(1) for c in a.unbind(dim=1))
    bx1, by1, bx2, by2 = (c.unsqueeze(0) for c in b.unbind(dim=1))
    width = (torch.minimum(ax2, bx2) - torch.maximum(ax1, bx1)).clamp_min(0)
    height = (torch.minimum(ay2, by2) - torch.maximum(ay1, by1)).clamp_min(0)
    inter = width * height
    union = (ax2 - ax1) * (ay2 - ay1) + (bx2 - bx1) * (by2 - by1) - inter
    return inter / union
