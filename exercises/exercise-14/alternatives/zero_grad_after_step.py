import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    # The model arrives without gradients, so clearing them after each step is equivalent.
    optimizer = torch.optim.SGD(model.parameters(), lr=lr)
    losses = []
    for _ in range(epochs):
        loss = nn.functional.mse_loss(model(X), y)
        losses.append(float(loss))
        loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return losses
