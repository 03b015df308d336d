import torch
from torch import nn


def train(
    model: nn.Module, X: torch.Tensor, y: torch.Tensor, lr: float = 0.1, epochs: int = 50
) -> list[float]:
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    avg = 0.0
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        avg = (avg + loss.item()) / 2
        losses.append(avg)
        loss.backward()
        optimizer.step()
    return losses
