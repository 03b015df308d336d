"""Exercise 08 - Reductions with dim and keepdim.

Implement the three functions below (each one currently raises NotImplementedError), keeping
their names and arguments. Run `grade exercise-08` to check your work, `grade hint exercise-08`
when you are stuck.
"""

import torch


def column_means(x: torch.Tensor) -> torch.Tensor:
    """The mean of each column of x (n, d), as a tensor of shape (d,)."""
    # TODO: which dim disappears when you average down the rows?
    raise NotImplementedError


def row_max(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The largest value of each row of x (n, d) and its column index: two tensors of shape (n,).

    The indices are int64; when a row's maximum appears more than once, any of its positions
    is right.
    """
    # TODO: one reduction gives both the values and the indices.
    raise NotImplementedError


def softmax_rows(x: torch.Tensor) -> torch.Tensor:
    """The softmax of each row of x (n, d): exp(x) / exp(x).sum over the row, shape (n, d).

    Numerically stable: rows holding values like 1000.0 give no inf or NaN. torch.softmax,
    Tensor.softmax, torch.nn.functional.softmax and log_softmax are not allowed.
    """
    # TODO: what can you subtract from each row without changing its softmax?
    raise NotImplementedError
