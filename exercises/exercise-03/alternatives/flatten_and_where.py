import torch


def positives(x):
    flat = x.reshape(-1)
    return flat[flat > 0]


def filter_boxes(boxes, scores, threshold):
    (rows,) = torch.where(scores > threshold)
    return boxes[rows, :]


def corner_copy(x, k):
    # Copy the transposed block, then transpose back: a non-contiguous but independent result.
    block = x[:k, :k].t()
    return torch.empty_like(block, memory_format=torch.contiguous_format).copy_(block).t()
