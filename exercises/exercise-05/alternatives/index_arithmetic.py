import torch


def flatten_transposed(x):
    a, b = x.shape
    # Element k of the result is x[k % a, k // a].
    k = torch.arange(a * b, device=x.device)
    return x[k % a, k // a]


def to_sequence(images):
    b, c, h, w = images.shape
    return torch.einsum("bchw->bhwc", images).reshape(b, h * w, c)
