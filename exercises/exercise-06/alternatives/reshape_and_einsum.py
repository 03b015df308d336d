import torch


def add_batch_dim(img):
    return img.reshape(1, *img.shape)


def drop_dim(x, dim):
    d = dim % x.dim()  # a negative dim counts from the end
    if x.shape[d] != 1:
        raise ValueError(f"size {x.shape[d]} at dimension {dim}")
    return x.reshape(x.shape[:d] + x.shape[d + 1 :])


def hwc_to_chw(img):
    return torch.einsum("hwc->chw", img)
