import torch


def add_batch_dim(img):
    return img[None]


def drop_dim(x, dim):
    if x.size(dim) != 1:
        raise ValueError("only a dimension of size 1 can be dropped")
    # The only index along a size-1 dimension is 0; select removes that dimension.
    return x.select(dim, 0)


def hwc_to_chw(img):
    return torch.movedim(img, -1, 0)
