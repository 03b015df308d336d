import torch


def add_batch_dim(img):
    img.unsqueeze(0)
    return img


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError("dimension must have size 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
