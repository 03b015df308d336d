import torch


def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    # torch.empty without device= is on the CPU, whatever the device of img.
    h, w, c = img.shape
    out = torch.empty(c, h, w, dtype=img.dtype)
    out.copy_(img.permute(2, 0, 1))
    return out
