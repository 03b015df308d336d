def add_batch_dim(img):
    return img.unflatten(0, (1, img.shape[0])) if img.dim() else img.reshape(1)


def drop_dim(x, dim):
    if x.size(dim) != 1:
        raise ValueError("that dimension does not have size 1")
    return x.narrow(dim, 0, 1).squeeze(dim)


def hwc_to_chw(img):
    return img.transpose(1, 2).transpose(0, 1)
