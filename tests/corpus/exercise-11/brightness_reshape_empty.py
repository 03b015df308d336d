import numpy as np
import torch

print("loading exercise 11")


def mean_brightness(images):
    B = images.shape[0]
    flat = images.reshape(B, -1).double()
    return (flat.sum(dim=1) / (flat.shape[1] * 255.0)).float()


def prepare_batch(features, labels):
    X = torch.tensor(features.astype(np.float32))
    y = torch.tensor(labels.astype(np.int64))
    return X, y
