"""layer.reset_parameters() after every step: each step's learning is thrown away."""

import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    criterion = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        pred = model(X)
        loss = criterion(pred, y.unsqueeze(1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        for layer in model.modules():
            if hasattr(layer, "reset_parameters"):
                layer.reset_parameters()
    return model, losses
