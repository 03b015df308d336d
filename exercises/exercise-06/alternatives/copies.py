import torch


class NotSizeOne(ValueError):
    pass


def add_batch_dim(img):
    return torch.stack([img])


def drop_dim(x, dim):
    out = x.squeeze(dim)
    if out.dim() == x.dim():  # squeeze(dim) did nothing: that size is not 1
        raise NotSizeOne(f"dimension {dim} of {tuple(x.shape)} is not of size 1")
    return out.clone()


def hwc_to_chw(img):
    return img.transpose(0, 2).transpose(1, 2).contiguous()
