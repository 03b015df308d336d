"""Exercise 17 - reference solution."""

import torch
from torch import nn


def train_regressor(
    X: torch.Tensor, y: torch.Tensor, epochs: int, lr: float, seed: int
) -> tuple[nn.Linear, list[float]]:
    torch.manual_seed(seed)  # before the model is created: it draws its initial weights
    model = nn.Linear(X.shape[1], 1).to(X.device)  # created on the CPU, then moved
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    target = y.unsqueeze(1)  # (n, 1), the shape of model(X); (n,) would broadcast to (n, n)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(model(X), target)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses, model
