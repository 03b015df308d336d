def add_batch_dim(img):
    return img[None]


def drop_dim(x, dim):
    if x.size(dim) != 1:
        raise ValueError(f"dimension {dim} has size {x.size(dim)}, not 1")
    # select takes index 0 of that dimension, which removes it.
    return x.select(dim, 0)


def hwc_to_chw(img):
    return img.movedim(-1, 0)
