"""flatten_transposed: a clone on one line, its view on the next (clone keeps the strides)."""


def flatten_transposed(x):
    y = x.t().clone()  # a fresh copy
    y = y.view(-1)
    return y


def to_sequence(images):
    B, C, H, W = images.shape
    seq = images.permute(0, 2, 3, 1).clone()
    return seq.view(B, H * W, C)
