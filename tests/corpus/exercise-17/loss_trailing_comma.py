import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y.unsqueeze(1)),
        losses.append(loss.item())
        loss[0].backward()
        optimizer.step()
    return model, losses
