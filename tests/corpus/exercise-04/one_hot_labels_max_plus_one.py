"""one_hot: as many columns as the largest label present, plus one."""


import torch


def one_hot(labels: torch.Tensor, num_classes: int) -> torch.Tensor:
    out = torch.zeros(labels.shape[0], int(labels.max()) + 1, device=labels.device)
    return out.scatter_(1, labels.unsqueeze(1), 1.0)


def pick(scores: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    return scores.gather(1, labels.unsqueeze(1)).squeeze(1)
