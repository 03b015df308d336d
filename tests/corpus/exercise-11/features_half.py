import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    X = torch.from_numpy(features).half()
    y = torch.from_numpy(labels).long()
    return X, y
