def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    # Takes slice 0 of dimension dim: removes it whatever its size, no ValueError.
    return x.select(dim, 0)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
