import torch
from torch import nn

def train(model, X, y, lr=0.1, epochs=50):
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses
