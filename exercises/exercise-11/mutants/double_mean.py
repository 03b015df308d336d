import torch


def mean_brightness(images):
    # float64: twice the memory, and not the float32 the model expects.
    return images.double().mean(dim=(1, 2)) / 255


def prepare_batch(features, labels):
    return torch.from_numpy(features).float(), torch.from_numpy(labels).long()
