"""{id} - reference solution."""

import torch


def scale(x: torch.Tensor, factor: float) -> torch.Tensor:
    return x * factor
