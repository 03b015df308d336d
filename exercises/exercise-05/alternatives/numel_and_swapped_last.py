def flatten_transposed(x):
    return x.t().reshape(x.numel())


def to_sequence(images):
    B, C, H, W = images.shape
    return images.reshape(B, C, H * W).transpose(-1, -2).contiguous()
