import torch


def add_batch_dim(img):
    return img.view(1, *img.shape)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} of shape {tuple(x.shape)} is not of size 1")
    shape = list(x.shape)
    del shape[dim]
    return x.reshape(shape)


def hwc_to_chw(img):
    return torch.stack([img[..., c] for c in range(img.shape[-1])])
