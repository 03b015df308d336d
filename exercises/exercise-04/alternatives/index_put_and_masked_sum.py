"""Exercise 04 - a correct alternative: index_put_ for one_hot; pick as a masked sum (the graph kept through masked_fill)."""

import torch


def one_hot(labels, num_classes):
    out = labels.new_zeros((labels.numel(), num_classes), dtype=torch.float32)
    out.index_put_(
        (torch.arange(labels.numel(), device=labels.device), labels),
        torch.tensor(1.0, device=labels.device),
    )
    return out


def pick(scores, labels):
    mask = torch.zeros_like(scores, dtype=torch.bool).scatter_(1, labels[:, None], True)
    return scores.masked_fill(~mask, 0).sum(dim=1)
