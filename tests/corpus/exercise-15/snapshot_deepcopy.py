import copy

import torch


def predict(model, X):
    with torch.no_grad():
        out = model(X)
    return out


def snapshot(t):
    # a deep copy never shares memory with the original
    return copy.deepcopy(t)
