import torch


def predict(model, X):
    model.eval()  # the caller's model is left in eval mode
    with torch.no_grad():
        return model(X)


def snapshot(t):
    return t.detach().clone()
