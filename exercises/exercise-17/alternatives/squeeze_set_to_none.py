import torch
import torch.nn.functional as F
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.size(1), 1)
    model.to(X.device)  # Module.to moves the parameters in place
    optimizer = torch.optim.SGD(model.parameters(), lr)
    losses = []
    for _ in range(epochs):
        loss = F.mse_loss(model(X).squeeze(1), y)  # (n,) against (n,)
        losses.append(float(loss))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)  # a fresh model has no gradients to clear first
    return model, losses
