"""from torch import nn, optim; SGD(params, lr) positional; zero_grad(set_to_none=False); squeeze(1) and F.mse_loss; float(loss)."""

import torch
from torch import nn, optim


def train_regressor(X, y, epochs, lr, seed):
    torch.manual_seed(seed)
    model = nn.Linear(X.shape[1], 1)
    model = model.to(X.device)
    opt = optim.SGD(model.parameters(), lr)
    losses = []
    for _ in range(epochs):
        opt.zero_grad(set_to_none=False)
        out = model(X).squeeze(1)
        loss = nn.functional.mse_loss(out, y)
        losses.append(float(loss))
        loss.backward()
        opt.step()
    return model, losses
