import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.5)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = nn.MSELoss()(model(X), y.unsqueeze(1))
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
