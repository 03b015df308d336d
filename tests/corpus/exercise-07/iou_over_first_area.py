"""Exercise 07 - reference solution."""

import torch


def pairwise_distance(x: torch.Tensor) -> torch.Tensor:
    # (n, 1, d) - (1, n, d) broadcasts to (n, n, d): every pair at once, no loop.
    # Subtracting first keeps the diagonal exactly 0 (x[i] - x[i] is exactly 0), unlike the
    # expansion |x|^2 + |y|^2 - 2 x.y, whose rounding errors can be slightly negative.
    diff = x[:, None, :] - x[None, :, :]
    return diff.pow(2).sum(dim=-1).sqrt()


def center_columns(x: torch.Tensor) -> torch.Tensor:
    # dim=0 reduces over the rows: one mean per column, kept as (1, d) to broadcast.
    return x - x.mean(dim=0, keepdim=True)


def iou_matrix(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    # (N, 1, 2) against (1, M, 2): every box of a meets every box of b.
    top_left = torch.maximum(a[:, None, :2], b[None, :, :2])
    bottom_right = torch.minimum(a[:, None, 2:], b[None, :, 2:])
    # Disjoint boxes give a negative width or height: clamp each at 0 before multiplying.
    wh = (bottom_right - top_left).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    # how much of each box of a is covered
    return inter / area_a[:, None]
