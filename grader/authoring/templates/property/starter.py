"""{id} - Rows that sum to one. Run `grade {id}` to check your work."""

import torch


def normalize_rows(x: torch.Tensor) -> torch.Tensor:
    """(n, d) -> (n, d): each row of x divided by its own sum."""
    # TODO
    raise NotImplementedError
