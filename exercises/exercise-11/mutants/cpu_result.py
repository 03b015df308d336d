import torch


def mean_brightness(images):
    return images.float().cpu().mean(dim=(1, 2)) / 255  # computed on the CPU


def prepare_batch(features, labels):
    return torch.from_numpy(features).float(), torch.from_numpy(labels).long()
