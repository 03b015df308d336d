import torch


@torch.inference_mode()
def predict(model, X):
    return model(X)


def snapshot(t):
    return t.clone().detach()
