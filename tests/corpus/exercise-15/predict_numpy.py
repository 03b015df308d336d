"""Exercise 15."""

import torch
from torch import nn


def predict(model: nn.Module, X: torch.Tensor) -> torch.Tensor:
    # no_grad() records nothing: no graph, no grad_fn, and the model is not touched at all.
    with torch.no_grad():
        return torch.from_numpy(model(X).numpy())


def snapshot(t: torch.Tensor) -> torch.Tensor:
    # detach() leaves the graph (but shares memory); clone() then copies the data.
    return t.detach().clone()
