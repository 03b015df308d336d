import torch


def positives(x: torch.Tensor) -> torch.Tensor:
    return x[x > 0]


def filter_boxes(boxes: torch.Tensor, scores: torch.Tensor, threshold: float) -> torch.Tensor:
    return torch.stack([b for b, s in zip(boxes, scores) if s > threshold])


def corner_copy(x: torch.Tensor, k: int) -> torch.Tensor:
    return x[:k, :k].clone()
