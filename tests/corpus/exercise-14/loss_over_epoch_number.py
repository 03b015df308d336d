import torch
from torch import nn


def train(
    model: nn.Module, X: torch.Tensor, y: torch.Tensor, lr: float = 0.1, epochs: int = 50
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(1, epochs + 1):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        losses.append(loss.item() / epoch)
        loss.backward()
        optimizer.step()
    return losses
