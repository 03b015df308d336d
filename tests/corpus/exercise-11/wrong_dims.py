import torch


def mean_brightness(images):
    images = images.float()
    return images.mean(dim=(0, 1)) / 255


def prepare_batch(features, labels):
    X = torch.from_numpy(features).float()
    y = torch.from_numpy(labels).long()
    return X, y
