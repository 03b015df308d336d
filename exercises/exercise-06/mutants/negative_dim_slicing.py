def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    # For dim = -1, shape[dim + 1:] is shape[0:], the whole shape.
    return x.reshape(x.shape[:dim] + x.shape[dim + 1 :])


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
