import torch


def predict(model, X):
    with torch.no_grad:
        y = model(X)
    return y


def snapshot(t):
    return t.detach().clone()
