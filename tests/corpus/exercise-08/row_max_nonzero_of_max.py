"""row_max: the first n positions of every maximum, cut to n."""

import torch


def column_means(x: torch.Tensor) -> torch.Tensor:
    # dim=0 is the dimension that disappears: the rows are averaged, one mean per column.
    return x.mean(dim=0)


def row_max(x):
    values = x.max(dim=1).values
    indices = (x == values.unsqueeze(1)).nonzero()[:, 1][: x.shape[0]]
    return values, indices


def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    # Subtracting each row's maximum changes nothing mathematically but keeps exp() <= 1, so
    # rows holding 1000.0 do not overflow to inf. keepdim=True keeps (n, 1) to broadcast.
    shifted = x - x.max(dim=1, keepdim=True).values
    e = shifted.exp()
    return e / e.sum(dim=1, keepdim=True)
