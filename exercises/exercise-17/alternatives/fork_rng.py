import torch
from torch import nn


def train_regressor(X, y, epochs, lr, seed):
    # Seeding inside fork_rng gives the same weights and leaves the caller's random state alone.
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = nn.Linear(X.shape[-1], 1)
    model = model.to(device=X.device)
    optimizer = torch.optim.SGD(params=model.parameters(), lr=lr, momentum=0.0)
    mse = nn.MSELoss(reduction="mean")
    losses = []
    for epoch in range(epochs):
        optimizer.zero_grad()
        prediction = model(X)
        loss = mse(prediction, y[:, None])
        losses.append(loss.item())
        loss.backward()
        optimizer.step()
    return model, losses
