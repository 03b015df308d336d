import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for epoch in range(epochs):
        nn.init.uniform_(model.weight, -0.5, 0.5)
        nn.init.zeros_(model.bias)
        optimizer.zero_grad()
        pred = X @ model.weight.T + model.bias  # the layer written out
        loss = nn.functional.mse_loss(pred, y.unsqueeze(1))
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
