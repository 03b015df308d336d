def positives(x):
    return x[x > 0]


def filter_boxes(boxes, scores, threshold):
    # The mask repeated for the 4 coordinates, on the boxes flattened with view(): view() needs
    # contiguous memory and fails on transposed boxes.
    mask = (scores > threshold).repeat_interleave(4)
    return boxes.view(-1)[mask].view(-1, 4)


def corner_copy(x, k):
    return x[:k, :k].clone()
