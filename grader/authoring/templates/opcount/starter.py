"""{id} - Row norms without loops. Run `grade {id}` to check your work."""

import torch


def row_norms(x: torch.Tensor) -> torch.Tensor:
    """(n, d) -> (n,): the Euclidean norm of each row, without Python loops."""
    # TODO
    raise NotImplementedError
