import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    n, d = features.shape
    # A flat view and back: view(-1) needs contiguous memory, which a sliced or transposed array
    # does not have.
    X = torch.from_numpy(features).view(-1).view(n, d).float()
    return X, torch.from_numpy(labels).long()
