import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dim {dim} has size {x.shape[dim]}, not 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    h, w, c = img.shape
    return img.view(c, h, w)
