import torch
from torch import nn

def train(model, X, y, lr=0.1, epochs=50):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = nn.MSELoss()(model(X), y.unsqueeze(1))
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return losses
