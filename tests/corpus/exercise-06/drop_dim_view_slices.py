import torch


def add_batch_dim(img: torch.Tensor) -> torch.Tensor:
    return img.unsqueeze(0)


def drop_dim(x: torch.Tensor, dim: int) -> torch.Tensor:
    if x.shape[dim] != 1:
        raise ValueError(
            f"dimension {dim} of a tensor of shape {tuple(x.shape)} has size {x.shape[dim]}, not 1"
        )
    return x.view(x.shape[:dim] + x.shape[dim + 1 :])


def hwc_to_chw(img: torch.Tensor) -> torch.Tensor:
    return img.permute(2, 0, 1)
