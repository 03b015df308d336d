import torch


def pairwise_distance(x):
    return (x[:, None, :] - x[None, :, :]).pow(2).sum(dim=-1).sqrt()


def center_columns(x):
    return x - x.mean(dim=0, keepdim=True)


def iou_matrix(a, b):
    # One box of a at a time against all of b: the number of operations grows with N.
    out = a.new_zeros(len(a), len(b))
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    for i in range(len(a)):
        box = a[i]
        wh = (torch.minimum(box[2:], b[:, 2:]) - torch.maximum(box[:2], b[:, :2])).clamp(min=0)
        inter = wh[:, 0] * wh[:, 1]
        area = (box[2] - box[0]) * (box[3] - box[1])
        out[i] = inter / (area + area_b - inter)
    return out
