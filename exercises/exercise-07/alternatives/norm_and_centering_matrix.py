import torch


def pairwise_distance(x):
    return torch.linalg.vector_norm(x.unsqueeze(1) - x.unsqueeze(0), ord=2, dim=2)


def center_columns(x):
    # The centering matrix H = I - 1/n subtracts the column means: H @ x.
    n = x.shape[0]
    eye = torch.eye(n, dtype=x.dtype, device=x.device)
    ones = torch.ones(n, n, dtype=x.dtype, device=x.device)
    return (eye - ones / n) @ x


def iou_matrix(a, b):
    # Built as (M, N) with b's boxes along dim 0, then transposed: a non-contiguous result.
    x1 = torch.max(b[:, None, 0], a[None, :, 0])
    y1 = torch.max(b[:, None, 1], a[None, :, 1])
    x2 = torch.min(b[:, None, 2], a[None, :, 2])
    y2 = torch.min(b[:, None, 3], a[None, :, 3])
    inter = (x2 - x1).clamp(min=0) * (y2 - y1).clamp(min=0)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return (inter / (area_b[:, None] + area_a[None, :] - inter)).T
