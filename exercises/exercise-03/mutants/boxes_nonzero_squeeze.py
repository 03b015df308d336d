def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    # squeeze() turns the (1, 1) index of a single passing box into a number: shape (4,).
    keep = (scores > threshold).nonzero().squeeze()
    return boxes[keep]


def corner_copy(x, k):
    return x[:k, :k].clone()
