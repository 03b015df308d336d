import torch


def mean_brightness(images):
    return images.float().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    # Everything to float32, the labels too.
    return torch.from_numpy(features).float(), torch.from_numpy(labels).float()
