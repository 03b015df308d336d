import torch
from torch import nn


def train(model, X, y, lr=0.1, epochs=50):
    # torch.autograd.grad returns the gradients without storing them in .grad at all.
    loss_fn = nn.MSELoss()
    params = list(model.parameters())
    losses = []
    for _ in range(epochs):
        loss = loss_fn(model(X), y)
        losses.append(loss.item())
        grads = torch.autograd.grad(loss, params)
        with torch.no_grad():
            for p, g in zip(params, grads):
                p.sub_(lr * g)
    return losses
