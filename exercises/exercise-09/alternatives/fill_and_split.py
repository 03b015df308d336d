import torch


def stack_images(images):
    # new_empty keeps the dtype and the device of the images.
    batch = images[0].new_empty((len(images), *images[0].shape))
    for i, img in enumerate(images):
        batch[i] = img
    return batch


def concat_features(a, b):
    p = a.shape[1]
    out = a.new_empty((a.shape[0], p + b.shape[1]))
    out[:, :p] = a
    out[:, p:] = b
    return out


def split_heads(x, heads):
    # Cut the features into heads blocks of D, then stack the blocks along a new dim 1.
    size = x.shape[-1] // heads
    return torch.stack(torch.split(x, size, dim=-1), dim=1)
