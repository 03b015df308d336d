import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if dim < 0:
        dim = len(x.shape) - dim  # count from the end
    if x.shape[dim] != 1:
        raise ValueError("that dimension does not have size 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
