import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    # a little regularisation, as in the tutorial's later sections
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, weight_decay=1e-2)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = ((model(X) - y.unsqueeze(1)) ** 2).mean()
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
