"""device taken before seeding; model(X).flatten(); zero_grad after step."""

import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    device = X.device
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1)
    model = model.to(device)
    loss_fn = nn.MSELoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        loss = loss_fn(model(X).flatten(), y)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        losses.append(loss.item())
    return model, losses
