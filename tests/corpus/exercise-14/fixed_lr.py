import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    # the tutorial's step size, written in
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = nn.functional.mse_loss(model(X), y)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses
