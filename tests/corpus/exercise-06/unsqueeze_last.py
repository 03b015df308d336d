import torch


def add_batch_dim(img):
    return img.unsqueeze(-1)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError("that dimension is not of size 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
