import torch
from torch import nn

def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1).to(X.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        optimizer.zero_grad()
        loss = nn.MSELoss()(model(X).squeeze(1), y.unsqueeze(1))
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
