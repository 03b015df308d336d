"""{id} - reference solution."""

import torch


def add_positions(x: torch.Tensor) -> torch.Tensor:
    return x + torch.arange(x.shape[1], device=x.device, dtype=x.dtype)
