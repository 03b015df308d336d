def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    # squeeze(dim) silently does nothing when the size is not 1: no ValueError.
    return x.squeeze(dim)


def hwc_to_chw(img):
    return img.permute(2, 0, 1)
