"""from torch import nn, optim; zero_grad(set_to_none=False); nn.functional.mse_loss; float(loss)."""

from torch import nn, optim


def train(model, X, y, lr=0.1, epochs=50):
    opt = optim.SGD(model.parameters(), lr=lr)
    losses = []
    for epoch in range(epochs):
        opt.zero_grad(set_to_none=False)
        pred = model(X)
        loss = nn.functional.mse_loss(pred, y)
        losses.append(float(loss))
        loss.backward()
        opt.step()
    return losses
