"""{id} - Scaling a tensor. Run `grade {id}` to check your work."""

import torch


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    """x multiplied by factor, with x's dtype and device; x itself is left unchanged."""
    # TODO
    raise NotImplementedError
