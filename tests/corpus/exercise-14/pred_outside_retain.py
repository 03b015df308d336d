import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    pred = model(X)
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(pred, y)
        losses.append(loss.item())
        loss.backward(retain_graph=True)
        optimizer.step()
    return losses
