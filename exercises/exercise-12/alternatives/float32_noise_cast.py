import torch


def add_noise(x, std):
    # float32 noise on x's device, cast to x's dtype before it meets x.
    noise = torch.randn(x.shape, device=x.device) * std
    return x + noise.to(x.dtype)


def length_mask(lengths, max_len):
    # Position p (counting from 1) is inside when p <= length.
    ones = torch.ones(lengths.shape[0], max_len, dtype=torch.int64, device=lengths.device)
    return ones.cumsum(dim=1) <= lengths[:, None]


def to_device(batch, device):
    match batch:
        case torch.Tensor():
            return batch.to(device)
        case dict():
            return {key: to_device(value, device) for key, value in batch.items()}
        case list():
            return [to_device(item, device) for item in batch]
        case tuple():
            return tuple(to_device(item, device) for item in batch)
        case _:
            return batch
