import torch
from torch import nn


def predict(model, X):
    model.eval()
    return model(X)


def snapshot(t):
    return t.detach().clone()
