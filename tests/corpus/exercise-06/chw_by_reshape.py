import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError("dimension must have size 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    H, W, C = img.shape
    return img.reshape(C, H, W)
