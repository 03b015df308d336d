import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    # The starter's bug: the gradients backward() just computed are cleared before step().
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    for _ in range(epochs):
        loss = loss_fn(model(X), y)
        losses.append(loss.item())
        loss.backward()
        optimizer.zero_grad()
        optimizer.step()
    return losses
