import torch
from torch import nn


def predict(model: nn.Module, X: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        return model(X)


def snapshot(t: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(t.detach().numpy())
