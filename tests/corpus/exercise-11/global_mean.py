import torch


def mean_brightness(images):
    # average brightness, scaled to [0, 1]
    return images.float().mean() / 255


def prepare_batch(features, labels):
    X = torch.from_numpy(features).float()
    y = torch.from_numpy(labels).long()
    return X, y
