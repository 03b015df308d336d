import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise Exception(f"dimension {dim} does not have size 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
