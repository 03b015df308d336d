import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    target = y.unsqueeze(1)
    n, d = X.shape
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        # A flat view and back: view(-1) needs contiguous memory.
        loss = loss_fn(model(X.view(-1).view(n, d)), target)
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
