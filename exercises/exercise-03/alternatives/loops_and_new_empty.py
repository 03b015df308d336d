import torch


def positives(x):
    # A Python loop over the values: slow, but correct.
    values = [v for v in x.flatten().tolist() if v > 0]
    return torch.tensor(values, dtype=x.dtype, device=x.device)


def filter_boxes(boxes, scores, threshold):
    keep = [i for i in range(scores.shape[0]) if scores[i].item() > threshold]
    return boxes[keep]


def corner_copy(x, k):
    out = x.new_empty((k, k))
    out.copy_(x[:k, :k])
    return out
