"""SGD by hand (p.sub_(lr * p.grad)); F.mse_loss(y, model(X)), arguments swapped (symmetric)."""

import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    losses = []
    for _ in range(epochs):
        model.zero_grad()
        loss = nn.functional.mse_loss(y, model(X))
        losses.append(float(loss))
        loss.backward()
        with torch.no_grad():
            for p in model.parameters():
                p.sub_(lr * p.grad)
    return losses
