import torch


def to_numpy(t):
    return t.detach().cpu().numpy()


def from_numpy_safe(a):
    # Independent, but torch.from_numpy refuses arrays with negative strides (a[::-1]).
    return torch.from_numpy(a).clone().float()
