import torch
from torch import nn


def train_regressor(
    X: torch.Tensor, y: torch.Tensor, epochs: int, lr: float, seed: int
) -> tuple[nn.Linear, list[float]]:
    torch.manual_seed(seed)
    loss_fn = nn.MSELoss()
    target = y.unsqueeze(1)
    losses = []
    for _ in range(epochs):
        model = nn.Linear(X.shape[1], 1).to(X.device)
        optimizer = torch.optim.SGD(model.parameters(), lr=lr)
        optimizer.zero_grad()
        loss = loss_fn(model(X), target)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
