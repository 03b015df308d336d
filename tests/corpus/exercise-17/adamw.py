import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    loss_fn = nn.MSELoss()
    losses = []
    for epoch in range(epochs):
        pred = model(X).squeeze(1)
        loss = loss_fn(pred, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return model, losses
