"""Exercise 07 - Broadcasting: pairwise distances and IoU.

Implement the three functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Write them with broadcasting, without Python loops. Run
`grade exercise-07` to check your work, `grade hint exercise-07` when you are stuck.
"""

import torch


def pairwise_distance(x: torch.Tensor) -> torch.Tensor:
    """Euclidean distances between the rows of x (n, d), as an (n, n) tensor.

    result[i, j] is the distance between x[i] and x[j]; the diagonal is exactly 0, never NaN.
    No Python loops: the work must not take more tensor operations for a larger n.
    """
    # TODO: broadcast (n, 1, d) against (1, n, d).
    raise NotImplementedError


def center_columns(x: torch.Tensor) -> torch.Tensor:
    """x (n, d) with each column's mean subtracted from that column; x itself is unchanged."""
    # TODO: which dim holds the rows that a column's mean averages over?
    raise NotImplementedError


def iou_matrix(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Intersection over union of every box of a (N, 4) with every box of b (M, 4): (N, M).

    Boxes are (x1, y1, x2, y2) with x1 < x2 and y1 < y2; boxes that do not overlap give 0.
    """
    # TODO: pair the boxes with (N, 1, ...) against (1, M, ...).
    raise NotImplementedError
