"""An unusual but correct solution."""


def add_batch_dim(img):
    return img.unsqueeze(-4)


def drop_dim(x, dim):
    if x.shape[dim] != 1:
        raise ValueError(f"dimension {dim} has size {x.shape[dim]}, not 1")
    return x[(slice(None),) * (dim % x.dim()) + (0,)]


def hwc_to_chw(img):
    H, W, C = img.shape
    return img.flatten(0, 1).T.reshape(C, H, W)
