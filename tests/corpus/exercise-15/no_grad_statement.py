"""Exercise 15 - reference solution."""

import torch
from torch import nn


def predict(model, X):
    torch.no_grad()
    return model(X)


def snapshot(t: torch.Tensor) -> torch.Tensor:
    # detach() leaves the graph (but shares memory); clone() then copies the data.
    return t.detach().clone()
