def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    # NumPy's transpose(axes): torch's transpose swaps two dims and refuses three.
    return img.transpose(2, 0, 1)
