def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    return boxes[scores > threshold]


def corner_copy(x, k):
    # Only the rows are cut: (k, W), not (k, k).
    return x[:k].clone()
